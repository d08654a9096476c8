/**
 * What the BFF and the SPA take as a card-service id or cursor. The contract types both as a
 * plain "string", so any string is one, within these rules, which keep it something a URL can
 * carry there and back unchanged:
 *
 * - Not empty, and bounded in UTF-8 bytes: ids 512, cursors 2048 (the old cursor bound, now
 *   counted in bytes). Percent-encoded, a byte is at most 3 characters, so the longest request
 *   built from two ids and a cursor (the transactions list: 2 × 1,536 + 6,144 ≈ 9.2 KB of
 *   values) stays well inside the 16 KiB Node's HTTP parser and haproxy's default buffer
 *   allow a request line and its headers, between the browser and the BFF as between the BFF
 *   and the card service.
 * - Well-formed Unicode: a lone surrogate has no UTF-8 form, so it cannot be percent-encoded
 *   (`encodeURIComponent` throws) and would not come back as the same string.
 * - An id has no control characters (Unicode Cc: U+0000–U+001F, U+007F–U+009F). The
 *   contract's "string" is JSON's, which can hold them, but an id is more than a token passed
 *   back: the audit trail stores it (PostgreSQL text cannot hold a NUL), people see it, and it
 *   sits in links they copy, where such characters cannot be shown or typed. A cursor is only
 *   ever passed back, percent-encoded, so it may hold them.
 * - An id is not "." or "..": those are dot segments, which URL parsers (WHATWG, RFC 3986
 *   §5.2.4) remove from a path even percent-encoded (`%2e%2e`), so no encoding can make such an
 *   id address a card rather than the collection above it.
 *
 * Everything else (spaces, `/`, `?`, `#`, `%`, `+`, quotes, any script, emoji) is an id or a
 * cursor, percent-encoded wherever it travels. No zod here: the SPA's first download uses it.
 */

export const MAX_ID_BYTES = 512;
export const MAX_CURSOR_BYTES = 2048;

/**
 * What is wrong with `value` as text of at most `maxBytes` UTF-8 bytes, in one pass over its
 * UTF-16 units (no regular expression: control characters in one are a lint error).
 */
function textProblem(
  value: unknown,
  maxBytes: number,
  controls: 'allowed' | 'refused',
): string | undefined {
  if (typeof value !== 'string') return 'must be text';
  if (value.length === 0) return 'must not be empty';
  const tooLong = `must be at most ${maxBytes} bytes in UTF-8`;
  // Every UTF-16 unit is at least one byte: a longer string is refused before it is read.
  if (value.length > maxBytes) return tooLong;
  let bytes = 0;
  for (let i = 0; i < value.length; i++) {
    const unit = value.charCodeAt(i);
    if (controls === 'refused' && (unit < 0x20 || (unit >= 0x7f && unit <= 0x9f))) {
      return 'must not contain control characters';
    }
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (unit < 0xd800 || unit > 0xdfff) bytes += 3;
    else {
      const low = value.charCodeAt(i + 1);
      if (unit > 0xdbff || !(low >= 0xdc00 && low <= 0xdfff)) return 'must be well-formed Unicode';
      bytes += 4; // a surrogate pair: one code point
      i++;
    }
  }
  return bytes > maxBytes ? tooLong : undefined;
}

/** Why `value` is not an id the BFF can address, or undefined when it is one. */
export function resourceIdProblem(value: unknown): string | undefined {
  const problem = textProblem(value, MAX_ID_BYTES, 'refused');
  if (problem) return problem;
  if (value === '.' || value === '..') return 'must not be "." or ".."';
  return undefined;
}

/** Why `value` is not a cursor the BFF passes on, or undefined when it is one. */
export function cursorProblem(value: unknown): string | undefined {
  return textProblem(value, MAX_CURSOR_BYTES, 'allowed');
}

export const isResourceId = (value: unknown): value is string =>
  resourceIdProblem(value) === undefined;
export const isCursor = (value: unknown): value is string => cursorProblem(value) === undefined;
