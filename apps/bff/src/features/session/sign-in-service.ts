import type { AuditMethod } from '@card-console/shared/api/audit';
import type { PasskeyAssertion } from '@card-console/shared/api/security';
import type { Logger } from 'pino';
import { AppError } from '../../core/app-error';
import type { AuditStore } from '../../platform/audit/audit-store';
import {
  type Metrics,
  noMetrics,
  type SignInFailure,
  type SignInMethod,
} from '../../platform/metrics/metrics';
import { type PasskeyCeremonies, PasskeyRefused } from '../../platform/passkeys/passkey-ceremonies';
import type { SecondFactors } from '../../platform/passkeys/second-factors';
import type { RateLimiters } from '../../platform/security/rate-limits';
import type { TotpVerifier } from '../../platform/security/totp';
import type { Actor } from '../../platform/sessions/who';
import { HashingBusyError, type HashingGate } from '../../platform/users/hashing-gate';
import type { PersonDirectory } from '../../platform/users/person-directory';
import { reserveSignIn } from './sign-in-limits';

export interface SignInAttempt {
  /** Already trimmed and lower-cased by the body schema. */
  email: string;
  password: string;
  totp?: string | undefined;
  passkey?: PasskeyAssertion | undefined;
  address: string;
  requestId: string;
}

export interface SignInDeps {
  users: PersonDirectory;
  totp: TotpVerifier;
  factors: SecondFactors;
  passkeys: PasskeyCeremonies;
  limiters: RateLimiters;
  hashing: HashingGate;
  audit: AuditStore;
  logger: Logger;
  /** Failures by method and reason, lock-outs by limit (`bff_sign_in_*`); none by default. */
  metrics?: Metrics;
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
 * who signed in and whether a second factor was checked (which counts as a step-up). An admin
 * always adds a second factor; anyone else does once they have one (passkey or TOTP).
 */
export async function signIn(
  deps: SignInDeps,
  attempt: SignInAttempt,
): Promise<{
  actor: Actor;
  steppedUp: boolean;
  /** The person's version in the people store, for the session to keep matching. */
  personVersion?: number | undefined;
  /** What admins see as the way in: the password, or the passkey that confirmed it. */
  proof: 'password' | 'passkey';
}> {
  const { users, totp, audit } = deps;
  const known = await users.find(attempt.email);
  const metrics = deps.metrics ?? noMetrics;
  const reservation = await reserveSignIn(
    deps.limiters,
    deps.logger,
    { email: attempt.email, address: attempt.address, known: known !== undefined },
    metrics,
  );

  // A failure keeps its reserved points: they are the count.
  const fail = async (
    detail: string,
    error: AppError = invalid(),
    method: SignInMethod = 'password',
  ): Promise<never> => {
    metrics.signInFailed(method, failureReason(method, known));
    // An unknown email is not recorded: people type passwords into the email field.
    await audit.append({
      actor: known?.email ?? '(unknown account)',
      role: known?.role,
      action: 'session.signIn',
      outcome: 'failed',
      method,
      detail,
      requestId: attempt.requestId,
    });
    throw error;
  };

  let user: Awaited<ReturnType<PersonDirectory['authenticate']>>;
  try {
    user = await deps.hashing.run(() => users.authenticate(attempt.email, attempt.password));
  } catch (error) {
    if (!(error instanceof HashingBusyError)) throw error;
    await reservation.cancel(); // nothing was checked
    throw busy();
  }
  if (!user) return fail(known?.disabled ? 'account disabled' : 'bad email or password');

  let steppedUp = false;
  let method: AuditMethod = 'password';
  // Admins always confirm a second factor; anyone else once they have one set up.
  const methods = await deps.factors.methods(user.email);
  if (user.role === 'admin' || methods.length > 0) {
    if (attempt.totp === undefined && attempt.passkey === undefined) {
      await reservation.passwordRight();
      // Options only after the password was right: they name the person's passkeys.
      const passkeyOptions = methods.includes('passkey')
        ? await deps.passkeys.authenticationOptions(user.email, 'sign-in', user.email)
        : undefined;
      throw new AppError(401, 'second_factor_required', secondFactorMessage(methods), {
        extensions: { secondFactor: { methods, ...(passkeyOptions ? { passkeyOptions } : {}) } },
      });
    }
    if (attempt.passkey) {
      try {
        await deps.passkeys.verifyAuthentication(
          user.email,
          'sign-in',
          user.email,
          attempt.passkey,
        );
      } catch (error) {
        if (!(error instanceof PasskeyRefused)) throw error;
        return fail(
          `passkey refused: ${error.message}`,
          new AppError(401, 'invalid_passkey', 'That passkey could not be checked. Try again.'),
          'password+passkey',
        );
      }
      method = 'password+passkey';
    } else {
      const secret = await deps.factors.totpSecret(user.email);
      if (!secret || !(await totp.verify(user.email, secret, attempt.totp as string))) {
        return fail('bad second-factor code', invalid(), 'password+totp');
      }
      method = 'password+totp';
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
    method,
    requestId: attempt.requestId,
  });
  return {
    actor,
    steppedUp,
    personVersion: user.version,
    proof: method === 'password+passkey' ? 'passkey' : 'password',
  };
}

/** The metrics' bucket for a refused sign-in: what failed, never who. */
function failureReason(
  method: SignInMethod,
  known: { disabled?: boolean | undefined } | undefined,
): SignInFailure {
  if (method === 'password+totp') return 'bad_totp';
  if (method === 'password+passkey') return 'passkey_refused';
  if (!known) return 'unknown_account';
  return known.disabled ? 'account_disabled' : 'bad_password';
}

function secondFactorMessage(methods: readonly string[]): string {
  if (methods.includes('passkey') && methods.includes('totp'))
    return 'Confirm it is you: use your passkey, or enter the 6-digit code from your authenticator app.';
  if (methods.includes('passkey')) return 'Confirm it is you: use your passkey.';
  if (methods.includes('totp')) return 'Enter the 6-digit code from your authenticator app.';
  return 'Your account has no second factor set up; ask whoever runs Card Console to add one.';
}
