import { isResourceId } from '@card-console/shared/upstream/ids';

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

/**
 * A card-service id from a link: any the BFF can address (`@card-console/shared/upstream/ids`:
 * any non-empty string up to 512 bytes, no control characters, not `.` or `..`), else none.
 * The router reads a value that looks like JSON as JSON (`?id=123` is the number 123), so a
 * number comes back as its text; the router's own links quote such ids, so they read back as
 * the same string.
 */
export function resourceId(value: unknown): string | undefined {
  const id = typeof value === 'number' ? String(value) : value;
  return isResourceId(id) ? id : undefined;
}

/** A list shows at most this many pages from a link: each is an upstream read on reload. */
export const MAX_PAGES = 20;

/** How many pages of a list are shown (1 to MAX_PAGES): more is capped, anything else dropped. */
export function pageCount(value: unknown): number | undefined {
  const n = typeof value === 'string' && value !== '' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 1) return undefined;
  return Math.min(n, MAX_PAGES);
}

const scalarSame = (a: unknown, b: unknown) =>
  typeof a !== 'object' && typeof b !== 'object' && String(a) === String(b);
/** Kept as it was: the same value, the same list, or one value read as a list of one. */
const same = (a: unknown, b: unknown) =>
  a === b ||
  scalarSame(a, b) ||
  (Array.isArray(a) &&
    Array.isArray(b) &&
    a.length === b.length &&
    a.every((v, n) => scalarSame(v, b[n]))) ||
  (Array.isArray(b) && b.length === 1 && scalarSame(a, b[0]));

/**
 * The values of a link that validation dropped or changed, as they were in the link, by key
 * (only keys the validator knows: it returns every one of them). None when all were kept.
 */
export function rejectedSearch(
  raw: Record<string, unknown>,
  valid: Record<string, unknown>,
): Record<string, unknown> | undefined {
  let rejected: Record<string, unknown> | undefined;
  for (const key of Object.keys(valid)) {
    if (raw[key] !== undefined && !same(raw[key], valid[key])) {
      rejected = { ...rejected, [key]: raw[key] };
    }
  }
  return rejected;
}

/** A search as a string that does not depend on key order or absent values. */
const searchKey = (search: Record<string, unknown>) =>
  JSON.stringify(
    Object.entries(search)
      .filter(([, value]) => value !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : 1)),
  );

/**
 * A route's `validateSearch` that also tells what it left out of an address, for a notice.
 * The router corrects an address with the validator before any route loads it (a first page
 * load is canonicalised at once), so what the link held is gone by the time `beforeLoad` runs:
 * the validator remembers what it dropped from the last address, and `takeRejected` hands it
 * over once, to the load of the address it was corrected to.
 */
export function noticingValidator<S extends object>(
  validate: (search: Record<string, unknown>) => S,
) {
  let last: { key: string; rejected: Record<string, unknown> } | undefined;
  return {
    validateSearch: (search: Record<string, unknown>): S => {
      const valid = validate(search);
      const rejected = rejectedSearch(search, valid as Record<string, unknown>);
      if (rejected) last = { key: searchKey(valid as Record<string, unknown>), rejected };
      return valid;
    },
    /** What the address being loaded lost to validation: in it still, or already corrected. */
    takeRejected: (raw: Record<string, unknown>, valid: S) => {
      const here = rejectedSearch(raw, valid as Record<string, unknown>);
      const remembered =
        last?.key === searchKey(valid as Record<string, unknown>) ? last.rejected : undefined;
      last = undefined;
      return here ?? remembered;
    },
  };
}

/**
 * History state of the address a link was corrected to: what the link held, so the screen can
 * say what it left out (the words live with the screen, outside the first download).
 */
export interface RejectedSearchState {
  rejectedSearch?: Record<string, unknown>;
}

declare module '@tanstack/react-router' {
  interface HistoryState extends RejectedSearchState {}
}
