import { displayNameSchema } from '../upstream/common';

/**
 * Characters that reorder how the text around them is shown (embeddings, overrides, isolates,
 * direction marks): a name holding one can display as something other than what it is.
 */
const textDirectionControl = /[\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C]/u;

/**
 * Characters that show nothing and join nothing in a name, so that a name holding one looks like
 * another (`Market<U+200B>ing` beside `Marketing`, a review found, and three tags that all read
 * `urgent`): the zero-width space, word joiner and invisible operators, BOM, soft hyphen,
 * Mongolian vowel separator and Hangul fillers anywhere; a zero-width joiner or non-joiner, or a
 * variation selector, beside plain ASCII or at an end, where they change nothing shown. Between
 * the letters of scripts that need them (Persian's non-joiner) and inside emoji sequences (👩‍💻)
 * they stay.
 */
const lookAlikeInvisible =
  /[\u200B\u2060-\u2064\uFEFF\u00AD\u180E\u115F\u1160\u3164\uFFA0]|(?:^|[\u0020-\u007E])(?:\u200C|\u200D|[\uFE00-\uFE0F])|(?:\u200C|\u200D)(?:[\u0020-\u007E]|$)/u;

/**
 * A character that shows: not white space, not a default-ignorable code point (zero-width
 * spaces and joiners, word joiner, BOM, variation selectors, Hangul fillers…), not a format
 * or control character, not a combining mark on its own, not the blank braille pattern.
 */
const visibleCharacter =
  /[^\p{White_Space}\p{Default_Ignorable_Code_Point}\p{M}\p{Cc}\p{Cf}\p{Cs}\u2800]/u;

/**
 * A security code written beside its name in free text (`cvv 123`, `CVC: 4567`, `123 cvv`): a
 * reveal's reason is kept in the audit trail for good, and an admin pasting what they read to
 * a cardholder put the code there (a review; the card number beside it was masked). Memos, kept
 * and exported, are held to it too, and so is every name a person gives (tags, card owners and
 * teams, card, sub-account, category, rule and passkey names: a review kept `cvv 123` as a tag
 * and an owner's name).
 */
const securityCodeInText =
  /(?:\b(?:cvv2?|cvc2?|cvn|csc|cid|security\s*code)\b[^\p{L}\p{Nd}]{0,4}\p{Nd}{3,4}(?!\p{Nd}))|(?:(?<!\p{Nd})\p{Nd}{3,4}[^\p{L}\p{Nd}]{0,4}\b(?:cvv2?|cvc2?|cvn|csc)\b)/iu;

/** Whether `text` holds a card's security code written beside its name. */
export function holdsSecurityCode(text: string): boolean {
  return securityCodeInText.test(text);
}

/**
 * A card or sub-account name a person gives: a display name (trimmed, 1-100 characters, no
 * control characters) that also has no text-direction controls, no invisible characters that
 * make it look like another, and at least one visible character, so two names that look alike
 * are alike and no name shows as blank; and no card's security code.
 */
export const visibleNameSchema = displayNameSchema
  .refine(
    (value) => !textDirectionControl.test(value),
    'must not contain text-direction control characters (U+202A–202E, U+2066–2069, U+200E, U+200F, U+061C)',
  )
  .refine((value) => visibleCharacter.test(value), 'must contain a visible character')
  // A name with nothing visible is refused for that alone.
  .refine(
    (value) => !visibleCharacter.test(value) || !lookAlikeInvisible.test(value),
    'must not contain invisible characters (zero-width spaces and joiners, word joiners, soft hyphens) that make it look like another name',
  )
  .refine((value) => !holdsSecurityCode(value), 'must not hold a card’s security code');

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
  if (lookAlikeInvisible.test(name))
    return 'Remove the invisible characters (such as zero-width spaces); they make a name look like another.';
  if (holdsSecurityCode(name))
    return 'Remove the card’s security code: a name is kept, shown to others and recorded.';
  return undefined;
}

/**
 * The largest version a change may name: versions are kept as 32-bit integers, and a version
 * past them (9007199254740984, sent by a property test) reached the database and failed as a
 * 500 rather than a 400.
 */
export const MAX_VERSION = 2_147_483_647;

/** Whether `text` holds characters that show nothing and make it look like another name. */
export function looksLikeAnotherName(text: string): boolean {
  return visibleCharacter.test(text) && lookAlikeInvisible.test(text);
}
