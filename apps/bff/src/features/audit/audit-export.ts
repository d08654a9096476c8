import type { AuditFilter, AuditRecord } from '@card-console/shared/api/audit';
import { instantToIsoDay } from '@card-console/shared/dates';
import type { AuditStore } from '../../platform/audit/audit-store';
import { paginate } from '../../platform/pagination/paginate';
import { type PageSource, walkBudget } from '../../platform/pagination/walk-budget';
import { maskDigitRuns } from '../../upstream/safe-message';
import { WALK_LIMITS } from '../../upstream/walk-limits';
import type { CardDirectory } from '../cards';
import { csvLines } from '../transactions';
import { withCard } from './audit-card';
import { auditCsvColumns, toAuditCsvRecord, zonedTime } from './audit-csv';

/** Records read from the store at a time while exporting. */
export const EXPORT_PAGE_SIZE = 500;

/** CSV lines of one store page, and how many records they hold. */
export interface CsvPage {
  text: string;
  rows: number;
}

/**
 * `audit_2026-11-01_2026-11-21.csv`: the filter's first and last day in the person's zone, the
 * export's own day when the range is open at the end; `audit_until_…` with no first day.
 */
export function auditExportFileName(filter: AuditFilter, timeZone: string, now: number): string {
  const last = instantToIsoDay(filter.to ?? now, timeZone);
  if (filter.from === undefined) return `audit_until_${last}.csv`;
  return `audit_${instantToIsoDay(filter.from, timeZone)}_${last}.csv`;
}

/**
 * What the export's own audit record says was exported: each filter given, times as UTC
 * instants, and the zone of the file's local times. A card number typed into a filter is
 * masked (no record may hold one).
 */
export function describeExport(filter: AuditFilter, timeZone: string): string {
  const parts: string[] = [];
  for (const key of ['actor', 'action', 'attempted', 'outcome', 'cardId'] as const) {
    const value = filter[key];
    if (value !== undefined) parts.push(`${key}=${value}`);
  }
  if (filter.from !== undefined) parts.push(`from=${new Date(filter.from).toISOString()}`);
  if (filter.to !== undefined) parts.push(`to=${new Date(filter.to).toISOString()}`);
  if (parts.length === 0) parts.push('all records');
  parts.push(`tz=${timeZone}`);
  return maskDigitRuns(parts.join(' '));
}

/** The header line of an export in `timeZone`. */
export function auditCsvHeader(timeZone: string): string {
  return csvLines([auditCsvColumns(timeZone)]);
}

/** The audit trail as a walk's source: its failures are the BFF's own, not the card service's. */
export const auditTrail: PageSource = {
  name: 'the audit trail',
  repeated: { status: 500, code: 'internal_error' },
  tooLong: { status: 500, code: 'internal_error' },
  timeout: { status: 503, code: 'store_unavailable' },
};

/**
 * Every record matching `filter`, newest first, as CSV pages: a keyset walk of the store
 * (`paginate`, bounded by `WALK_LIMITS.auditExport`), starting from `first` (read before the
 * download began, so a store that is down is still a plain error answer). Records appended
 * meanwhile are newer than the walk: never repeated. The next page is read while this one
 * is written.
 */
export async function* auditCsvPages(
  audit: AuditStore,
  filter: AuditFilter,
  timeZone: string,
  first: { items: AuditRecord[]; nextCursor?: string },
  cards: Pick<CardDirectory, 'label'>,
  options: { now?: () => number } = {},
): AsyncGenerator<CsvPage> {
  const local = zonedTime(timeZone);
  const pages = paginate({
    first,
    next: (cursor) => audit.list({ limit: EXPORT_PAGE_SIZE, filter, cursor }),
    cursorOf: (page) => page.nextCursor,
    budget: walkBudget(WALK_LIMITS.auditExport, { source: auditTrail, ...options }),
  });
  for await (const page of pages) {
    yield {
      text: csvLines(page.items.map((r) => toAuditCsvRecord(withCard(r, cards), local))),
      rows: page.items.length,
    };
  }
}
