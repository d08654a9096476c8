import type { Logger } from 'pino';
import { type Metrics, noMetrics } from '../../platform/metrics/metrics';
import {
  type Counter,
  giveBack,
  type HeldPoint,
  reserve,
} from '../../platform/security/attempt-reservation';
import { type RateLimiters, tooManyRequests } from '../../platform/security/rate-limits';

const limitedMessage = 'Too many failed sign-ins; wait before trying again.';

/**
 * An attempt's points, held while it is checked. A failure keeps them all (that is the
 * count); the other outcomes say which ones go back.
 */
export interface SignInReservation {
  /** Nothing was checked (no hashing slot): every point goes back. */
  cancel(): Promise<void>;
  /**
   * The password was right but the code is missing: the address and the account's ceiling
   * get their point back (it was no guess), the account at this address keeps it, so asking
   * again and again costs a hash each time only a few times per window.
   */
  passwordRight(): Promise<void>;
  /** Signed in: the account's count at this address is cleared, the others get their point back. */
  succeeded(): Promise<void>;
}

export interface SignInWho {
  email: string;
  address: string;
  /** Whether the email is an account; an unknown one is never written to the log. */
  known: boolean;
}

/**
 * Reserves one attempt before the password is looked at, per address, per account at this
 * address (tight) and per account from everywhere (the ceiling). Refused → 429 with
 * Retry-After; reaching the ceiling logs an alarm.
 */
export async function reserveSignIn(
  limiters: RateLimiters,
  logger: Logger,
  who: SignInWho,
  metrics: Metrics = noMetrics,
): Promise<SignInReservation> {
  // An address cannot hold an `|`, so the pair key is unambiguous.
  const accountAddress: Counter = {
    limiter: limiters.signInPerAccountAddress,
    key: `${who.address}|${who.email}`,
  };
  const address: Counter = { limiter: limiters.signInPerAddress, key: who.address };
  const account: Counter = { limiter: limiters.signInPerAccount, key: who.email };

  // The address first: a locked address spends nothing on the accounts it names.
  const reservation = await reserve([address, accountAddress, account]);
  if (!reservation.ok) {
    const { refusedBy } = reservation;
    metrics.signInLockedOut(
      refusedBy === address
        ? 'address'
        : refusedBy === accountAddress
          ? 'account_at_address'
          : 'account',
    );
    throw tooManyRequests(reservation.msBeforeNext, limitedMessage);
  }
  const [heldAddress, heldPair, heldAccount] = reservation.held as [
    HeldPoint,
    HeldPoint,
    HeldPoint,
  ];

  // Exactly one attempt takes the last point (consume is atomic): one alarm each time it fills.
  if (heldAccount.consumedPoints === account.limiter.points) {
    logger.error(
      {
        alarm: 'signin_account_ceiling',
        account: who.known ? who.email : '(unknown account)',
        attempts: account.limiter.points,
        windowSeconds: account.limiter.duration,
      },
      'sign-in attempts for one account reached the ceiling: the account is locked for every address until the window ends',
    );
  }

  return {
    cancel: async () => {
      await Promise.all([heldAddress, heldPair, heldAccount].map(giveBack));
    },
    passwordRight: async () => {
      await Promise.all([heldAddress, heldAccount].map(giveBack));
    },
    succeeded: async () => {
      await Promise.all([giveBack(heldAddress), giveBack(heldAccount)]);
      await accountAddress.limiter.delete(accountAddress.key);
    },
  };
}
