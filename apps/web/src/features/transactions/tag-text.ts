// A tag's characters as `tagSchema` (a visible name of at most 40) takes them, free of zod: the
// Transactions screen's address is checked in the first download.

export const MAX_TAG = 40;

/** Control and text-direction characters: never in a tag. */
export const TAG_UNSAFE = /[\p{Cc}\p{Cs}\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C]/u;
/** A character that shows (a tag needs one). */
export const TAG_VISIBLE =
  /[^\p{White_Space}\p{Default_Ignorable_Code_Point}\p{M}\p{Cc}\p{Cf}\p{Cs}\u2800]/u;

/** A tag as a filter names it: trimmed, at most MAX_TAG characters, visible, one line. */
export function isTagText(text: string): boolean {
  return (
    text === text.trim() &&
    text.length > 0 &&
    text.length <= MAX_TAG &&
    !TAG_UNSAFE.test(text) &&
    TAG_VISIBLE.test(text)
  );
}
