import type { AuditListQuery } from '@card-console/shared/api/audit';
import { dayRangeToBounds } from '@card-console/shared/dates';
import type { AuditSearch } from './audit-search';

/** What `GET /api/audit` is asked for: the URL's days as inclusive Unix-ms bounds. */
export type AuditListFilter = Omit<AuditListQuery, 'cursor' | 'from' | 'to'> & {
  from?: number | undefined;
  to?: number | undefined;
};

/**
 * The chosen calendar days in the person's zone as inclusive Unix-ms bounds. The zone is asked
 * for only when a day is chosen (the browser's first time-zone lookup can be slow).
 */
export function toAuditFilter(search: AuditSearch, timeZone: () => string): AuditListFilter {
  const bounds =
    search.from || search.to ? dayRangeToBounds(search.from, search.to, timeZone()) : {};
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
