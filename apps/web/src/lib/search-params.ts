/**
 * Tiny validators for URL search params. Routes validate search on the very first page load,
 * so whatever they use is in the first download; zod (even zod/mini) adds ~27 kB gzipped
 * there, which alone breaks the 110 kB budget. Each function turns an untrusted value into
 * the typed one or `undefined` (the default), never throwing: a bad link still opens.
 */

export function oneOf<T extends string>(values: readonly T[], value: unknown): T | undefined {
  return typeof value === 'string' && (values as readonly string[]).includes(value)
    ? (value as T)
    : undefined;
}

/** A non-empty string of at most `max` characters matching `pattern`. */
export function text(value: unknown, max: number, pattern?: RegExp): string | undefined {
  if (typeof value === 'number') value = String(value);
  if (typeof value !== 'string' || value === '' || value.length > max) return undefined;
  return pattern && !pattern.test(value) ? undefined : value;
}

export function flag(value: unknown): boolean | undefined {
  if (value === true || value === 'true') return true;
  if (value === false || value === 'false') return false;
  return undefined;
}

/** Ids are checked strictly by the BFF; the SPA only keeps them URL-safe. */
export const ID_PATTERN = /^[A-Za-z0-9_-]+$/;
