import { displayNameSchema } from '../upstream/common';

/**
 * Characters that reorder how the text around them is shown (embeddings, overrides, isolates,
 * direction marks): a name holding one can display as something other than what it is.
 */
const textDirectionControl = /[\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C]/u;

/**
 * A character that shows: not white space, not a default-ignorable code point (zero-width
 * spaces and joiners, word joiner, BOM, variation selectors, Hangul fillers…), not a format
 * or control character, not a combining mark on its own, not the blank braille pattern.
 */
const visibleCharacter =
  /[^\p{White_Space}\p{Default_Ignorable_Code_Point}\p{M}\p{Cc}\p{Cf}\p{Cs}\u2800]/u;

/**
 * A card or sub-account name a person gives: a display name (trimmed, 1-100 characters, no
 * control characters) that also has no text-direction controls and at least one visible
 * character, so two names that look alike are alike and no name shows as blank.
 */
export const visibleNameSchema = displayNameSchema
  .refine(
    (value) => !textDirectionControl.test(value),
    'must not contain text-direction control characters (U+202A–202E, U+2066–2069, U+200E, U+200F, U+061C)',
  )
  .refine((value) => visibleCharacter.test(value), 'must contain a visible character');

/**
 * Why a name a person typed cannot be used, in plain words for a form (the API's 400 says the
 * same in its own terms); undefined when `visibleNameSchema` accepts it.
 */
export function nameProblem(value: string): string | undefined {
  const name = value.trim();
  if (name === '') return 'Enter a name.';
  if (name.length > 100) return 'Use at most 100 characters.';
  if (/[\p{Cc}\p{Cs}]/u.test(name))
    return 'Remove the control characters (such as tabs or line breaks).';
  if (textDirectionControl.test(name))
    return 'Remove the invisible text-direction characters; they make a name show differently from what it is.';
  if (!visibleCharacter.test(name)) return 'Use at least one visible letter, digit or sign.';
  return undefined;
}
