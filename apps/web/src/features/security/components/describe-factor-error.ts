import { isApiError } from '../../../lib/api-error';
import { isPasskeyError } from '../../../lib/passkey-ceremony';

/** A refusal of a second-factor change in plain words; `lastFactor` says it for this action. */
export function describeFactorError(error: unknown, lastFactor?: string): string {
  if (isPasskeyError(error)) return error.message;
  if (!isApiError(error)) return 'Something went wrong. Try again.';
  switch (error.code) {
    case 'last_factor':
      return lastFactor ?? 'You would be left with no way to confirm it is you.';
    case 'passkey_exists':
      return 'This device or security key already holds one of your passkeys.';
    case 'too_many_passkeys':
      return 'You have as many passkeys as allowed. Remove one before adding another.';
    case 'invalid_passkey':
      return 'The passkey could not be verified. Try again.';
    case 'no_passkeys':
      return 'You have no passkey to confirm with yet.';
    case 'invalid_totp':
      return 'That code is not right. Enter the current one.';
    case 'recent_sign_in_required':
      return 'For your first passkey, sign out and sign in again, then add it within 5 minutes.';
    case 'not_found':
      return 'That passkey no longer exists. Reload the page to see your passkeys.';
  }
  if (error.status === 429) {
    return `Too many requests — try again in ${error.retryAfterSeconds ?? 60} s.`;
  }
  return error.message;
}
