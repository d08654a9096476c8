import type { Logger } from 'pino';
import { AppError } from '../../http/app-error';
import type { Actor } from '../../http/context';
import type { AuditStore } from '../../http/deps';
import type { RateLimiters } from '../../platform/security/rate-limits';
import type { TotpVerifier } from '../../platform/security/totp';
import { HashingBusyError, type HashingGate } from '../../platform/users/hashing-gate';
import type { UserDirectory } from '../../platform/users/user-directory';
import { reserveSignIn } from './sign-in-limits';

export interface SignInAttempt {
  /** Already trimmed and lower-cased by the body schema. */
  email: string;
  password: string;
  totp?: string;
  address: string;
  requestId: string;
}

export interface SignInDeps {
  users: UserDirectory;
  totp: TotpVerifier;
  limiters: RateLimiters;
  hashing: HashingGate;
  audit: AuditStore;
  logger: Logger;
}

const invalid = () => new AppError(401, 'invalid_credentials', 'Wrong email, password or code.');
const busy = () =>
  new AppError(429, 'rate_limited', 'Sign-in is busy; try again in a moment.', {
    retryAfterSeconds: 1,
  });

/**
 * Checks a sign-in. The attempt is counted before the password is looked at (see
 * `reserveSignIn`), so requests sent at once cannot evaluate more guesses than the limits
 * allow; only a success gives the count back. The hash runs behind the hashing gate. Returns
 * who signed in and whether a second factor was checked (which counts as a step-up).
 */
export async function signIn(
  deps: SignInDeps,
  attempt: SignInAttempt,
): Promise<{ actor: Actor; steppedUp: boolean }> {
  const { users, totp, audit } = deps;
  const known = users.find(attempt.email);
  const reservation = await reserveSignIn(deps.limiters, deps.logger, {
    email: attempt.email,
    address: attempt.address,
    known: known !== undefined,
  });

  // A failure keeps its reserved points: they are the count.
  const fail = async (detail: string): Promise<never> => {
    // An unknown email is not recorded: people type passwords into the email field.
    await audit.append({
      actor: known?.email ?? '(unknown account)',
      role: known?.role,
      action: 'session.signIn',
      outcome: 'failed',
      detail,
      requestId: attempt.requestId,
    });
    throw invalid();
  };

  let user: Awaited<ReturnType<UserDirectory['authenticate']>>;
  try {
    user = await deps.hashing.run(() => users.authenticate(attempt.email, attempt.password));
  } catch (error) {
    if (!(error instanceof HashingBusyError)) throw error;
    await reservation.cancel(); // nothing was checked
    throw busy();
  }
  if (!user) return fail(known?.disabled ? 'account disabled' : 'bad email or password');

  let steppedUp = false;
  if (user.role === 'admin') {
    // Admins always have a secret (the users-file schema insists); the code is checked here.
    if (attempt.totp === undefined) {
      await reservation.passwordRight();
      throw new AppError(
        401,
        'totp_required',
        'Enter the 6-digit code from your authenticator app.',
      );
    }
    if (!user.totpSecret || !(await totp.verify(user.email, user.totpSecret, attempt.totp))) {
      return fail('bad second-factor code');
    }
    steppedUp = true;
  }

  await reservation.succeeded();
  const actor = { email: user.email, role: user.role };
  await audit.append({
    actor: actor.email,
    role: actor.role,
    action: 'session.signIn',
    outcome: 'success',
    requestId: attempt.requestId,
  });
  return { actor, steppedUp };
}
