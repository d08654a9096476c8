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

/**
 * A value as one text. The address reads bare commas as a list's (lib/url-search.ts writes a
 * comma inside a value as %2C), so `?q=coffee,tea` typed by hand arrives split: only a list's
 * validator takes it as a list; any other field takes back the text as typed. (A list of one
 * was never a split text: an old link's list, for a field that holds one value, stays refused.)
 */
function whole(value: unknown): unknown {
  return Array.isArray(value) && value.length > 1 && value.every((v) => typeof v === 'string')
    ? value.join(',')
    : value;
}

/** A non-empty string of at most `max` characters matching `pattern`. */
export function text(value: unknown, max: number, pattern?: RegExp): string | undefined {
  value = whole(value);
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
 * Links hold ids as text (`?id=123` is the id "123"); a number from code is taken as its text.
 */
export function resourceId(value: unknown): string | undefined {
  const joined = whole(value);
  const id = typeof joined === 'number' ? String(joined) : joined;
  return isResourceId(id) ? id : undefined;
}

/**
 * A list from a link: `?status=declined,settled` (read as a list), a value alone as a list of
 * one, or an old link's JSON list; bad members dropped, repeats once, at most `max`; none when
 * nothing is left. A `commaFree` list (statuses, codes: no value holds a comma) also splits a
 * text at its commas, for a link whose commas something encoded as %2C on the way; a list of
 * free text must not ("ACME, INC" is one merchant).
 */
export function listOf<T>(
  value: unknown,
  item: (v: unknown) => T | undefined,
  max: number,
  { commaFree = false } = {},
): T[] | undefined {
  const raw = Array.isArray(value)
    ? value
    : value === undefined
      ? []
      : commaFree && typeof value === 'string'
        ? value.split(',')
        : [value];
  const kept = [...new Set(raw.map(item).filter((v): v is T => v !== undefined))].slice(0, max);
  return kept.length > 0 ? kept : undefined;
}

/** A list shows at most this many pages from a link: each is an upstream read on reload. */
export const MAX_PAGES = 20;

/** How many pages of a list are shown (1 to MAX_PAGES): more is capped, anything else dropped. */
export function pageCount(value: unknown): number | undefined {
  const n = typeof value === 'string' && value !== '' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 1) return undefined;
  return Math.min(n, MAX_PAGES);
}

/** A value as the address writes it: a list's values joined by commas. */
const written = (value: unknown) =>
  Array.isArray(value) && value.every((v) => typeof v !== 'object') ? value.join(',') : value;
/**
 * Kept as it was, as the address says it: the same value, the same list, a value read as a
 * list of one, a text split at its commas read back whole, or the reverse.
 */
const same = (a: unknown, b: unknown) => {
  const [x, y] = [written(a), written(b)];
  const scalars =
    typeof x !== 'object' && typeof y !== 'object' && x !== undefined && y !== undefined;
  return a === b || (scalars && String(x) === String(y));
};

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
