import type { AuditListQuery } from '@card-console/shared/api/audit';
import { dayRangeToBounds, instantToIsoDay } from '@card-console/shared/dates';
import { periodDays } from '../../lib/periods';
import type { AuditSearch } from './audit-search';

/** What `GET /api/audit` is asked for: the URL's days as inclusive Unix-ms bounds. */
export type AuditListFilter = Omit<AuditListQuery, 'cursor' | 'from' | 'to'> & {
  from?: number | undefined;
  to?: number | undefined;
};

/**
 * The chosen calendar days (a preset's on the person's today, or custom ones) in the person's
 * zone as inclusive Unix-ms bounds. The zone is asked
 * for only when a day is chosen (the browser's first time-zone lookup can be slow).
 */
export function toAuditFilter(
  search: AuditSearch,
  timeZone: () => string,
  now = Date.now(),
): AuditListFilter {
  const days = search.period
    ? periodDays(search.period, instantToIsoDay(now, timeZone()))
    : { from: search.from, to: search.to };
  const bounds = days.from || days.to ? dayRangeToBounds(days.from, days.to, timeZone()) : {};
  return {
    actor: search.actor,
    action: search.action,
    attempted: search.attempted,
    outcome: search.outcome,
    cardId: search.cardId,
    from: bounds.from,
    to: bounds.to,
  };
}

/** Is anything narrowing the list? (An empty list then means "nothing matches".) */
export function isFiltered(search: AuditSearch): boolean {
  const { pages: _pages, ...filters } = search;
  return Object.values(filters).some((value) => value !== undefined);
}
