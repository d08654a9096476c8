import type { Logger } from 'pino';
import { AppError } from '../../http/app-error';
import type { Actor } from '../../http/context';
import type { AuditStore } from '../../http/deps';
import {
  consumeOrThrow,
  type RateLimiters,
  refuseWhenExhausted,
} from '../../platform/security/rate-limits';
import type { TotpVerifier } from '../../platform/security/totp';
import type { UserDirectory } from '../../platform/users/user-directory';

export interface SignInAttempt {
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
  audit: AuditStore;
  logger: Logger;
}

const invalid = () => new AppError(401, 'invalid_credentials', 'Wrong email, password or code.');
const limited = 'Too many failed sign-ins; wait before trying again.';

/**
 * Checks a sign-in. Failures count against the account and the address (5 and 20 per
 * 15 minutes by default); a locked key is refused before any password work. Returns who
 * signed in and whether a second factor was checked (which counts as a step-up).
 */
export async function signIn(
  deps: SignInDeps,
  attempt: SignInAttempt,
): Promise<{ actor: Actor; steppedUp: boolean }> {
  const { users, totp, limiters, audit } = deps;
  await refuseWhenExhausted(limiters.signInPerAddress, attempt.address, limited);
  await refuseWhenExhausted(limiters.signInPerAccount, attempt.email, limited);

  const fail = async (detail: string): Promise<never> => {
    // An unknown email is not recorded: people type passwords into the email field.
    const known = users.find(attempt.email);
    await audit.append({
      actor: known?.email ?? '(unknown account)',
      role: known?.role,
      action: 'session.signIn',
      outcome: 'failed',
      detail,
      requestId: attempt.requestId,
    });
    await consumeOrThrow(limiters.signInPerAddress, attempt.address, limited);
    await consumeOrThrow(limiters.signInPerAccount, attempt.email, limited);
    throw invalid();
  };

  const user = await users.authenticate(attempt.email, attempt.password);
  if (!user) return fail('bad email or password');

  let steppedUp = false;
  if (user.role === 'admin') {
    // Admins always have a secret (the users-file schema insists); the code is checked here.
    if (attempt.totp === undefined) {
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

  await limiters.signInPerAccount.delete(attempt.email);
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
