import { instantToIsoDay } from '@card-console/shared/dates';
import { create as contentDisposition } from 'content-disposition';

/** Characters of the sub account's name kept in a file name. */
const MAX_NAME = 60;
/** The name part when the sub account's name is unknown or has nothing a file name can keep. */
const FALLBACK = 'transactions';

/**
 * The days a file is named after, as the person reads them: `fromDay`/`toDay` when given, else
 * the days the filter's bounds fall on in the zone; no upper bound is the export's own day.
 */
export function exportDays(
  filter: { from?: number; to?: number },
  given: { fromDay?: string; toDay?: string; zone: string; now: number },
): { fromDay?: string; toDay: string } {
  const fromDay =
    given.fromDay ??
    (filter.from === undefined ? undefined : instantToIsoDay(filter.from, given.zone));
  const toDay = given.toDay ?? instantToIsoDay(filter.to ?? given.now, given.zone);
  return fromDay === undefined ? { toDay } : { fromDay, toDay };
}

/** Letters and digits in runs joined by "-", at most MAX_NAME characters. */
function slug(text: string, other: RegExp): string {
  const joined = text
    .toLowerCase()
    .replace(other, '-')
    .replace(/^-+|-+$/g, '');
  return Array.from(joined).slice(0, MAX_NAME).join('').replace(/-+$/, '');
}

/**
 * `Content-Disposition` of an export: `operations_2026-11-01_2026-11-21.csv`, or
 * `operations_until_2026-11-21.csv` with no lower bound. The name part is the sub account's
 * name reduced to letters and digits: an ASCII `filename` (accents dropped) and, when the
 * name has other letters, the UTF-8 one as RFC 6266's `filename*`. Neither can hold a path
 * separator, a quote or a control character.
 */
export function exportContentDisposition(parts: {
  subAccountName: string | undefined;
  fromDay?: string;
  toDay: string;
  /** The file's kind (a CSV unless said). */
  extension?: 'csv' | 'zip';
}): string {
  const ext = parts.extension ?? 'csv';
  const days = parts.fromDay ? `${parts.fromDay}_${parts.toDay}` : `until_${parts.toDay}`;
  const name = parts.subAccountName?.normalize('NFKC') ?? '';
  const unicode = slug(name, /[^\p{L}\p{M}\p{N}]+/gu) || FALLBACK;
  const ascii =
    slug(name.normalize('NFKD').replace(/\p{M}/gu, ''), /[^a-z0-9]+/g) ||
    // A name with no ASCII letter at all still gets a readable plain name.
    FALLBACK;
  return contentDisposition(`${unicode}_${days}.${ext}`, { fallback: `${ascii}_${days}.${ext}` });
}
