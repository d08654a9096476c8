import { isApiError } from '../../lib/api-error';
import { isPasskeyError } from '../../lib/passkey-ceremony';

/**
 * The BFF's code for a refusal, as a plain string: a code this build's shared list does not
 * know yet reaches the SPA as `http_error`, so the answer's status decides where it can.
 */
function codeOf(error: unknown): string | undefined {
  return isApiError(error) ? error.code : undefined;
}

export type PeopleChange = 'invite' | 'role' | 'disable' | 'enable' | 'remove' | 'withdraw' | 'end';

/**
 * A refused change to a person, in plain words. `email` is the person it was about. A 409 on a
 * person's change is the last-admin rule unless the BFF says it was the provider's role.
 */
export function describePeopleError(error: unknown, change: PeopleChange, email: string): string {
  if (isPasskeyError(error)) return error.message;
  if (!isApiError(error)) return 'Something went wrong. Try again.';
  const code = codeOf(error);
  if (code === 'role_from_provider') {
    return `${email}'s role is set by your identity provider: change it there.`;
  }
  // Someone already here: the BFF's words say whether they can sign in or are disabled, and
  // what to do instead (change their role, or enable them).
  if (code === 'person_exists') return error.message;
  if (error.status === 409 && change === 'invite') {
    return `${email} already has an account or an open invitation.`;
  }
  if (code === 'last_admin' || (error.status === 409 && change !== 'invite')) {
    return `${email} is the last admin: make someone else an admin first.`;
  }
  if (error.status === 404) {
    return change === 'withdraw'
      ? `The invitation for ${email} is no longer open. Reload the page to see who is here.`
      : `${email} is no longer here. Reload the page to see who is.`;
  }
  if (code === 'step_up_required') return 'Confirm it is you first, then try again.';
  if (error.status === 429) {
    return `Too many requests — try again in ${error.retryAfterSeconds ?? 60} s.`;
  }
  if (error.code === 'http_error' || error.code === 'invalid_response') {
    return error.status >= 500
      ? 'The server could not make the change just now. Try again in a moment.'
      : 'The server refused the change. Reload the page and try again.';
  }
  return error.message;
}
