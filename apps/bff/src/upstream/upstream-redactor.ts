import { maskCardNumbers } from '../platform/security/card-numbers';
import { createFragmentRemover } from '../platform/security/secret-fragments';

/** The shortest piece of the API key that is removed from upstream text. */
export const KEY_FRAGMENT_LENGTH = 8;
export const REDACTED_KEY = '[redacted]';

/** Makes one string from the card service fit for a response, an export or a log. */
export type UpstreamRedactor = (text: string) => string;

/**
 * Built once with the configured API key: removes the key and any piece of it 8 or more
 * characters long, then masks card numbers to their last four digits (`maskCardNumbers`).
 * A string too short to hold either comes back at once: most fields of an answer are.
 */
export function createUpstreamRedactor(apiKey: string): UpstreamRedactor {
  const removeKey = createFragmentRemover(apiKey, {
    minLength: KEY_FRAGMENT_LENGTH,
    replacement: REDACTED_KEY,
  });
  // A card number has at least 13 digits; a key piece, the fragment length (or the key's).
  const shortest = Math.min(13, KEY_FRAGMENT_LENGTH, Math.max(1, apiKey.length));
  return (text) => (text.length < shortest ? text : maskCardNumbers(removeKey(text)));
}
