import type { AuditFilter, AuditRecord } from '@card-console/shared/api/audit';

/** Whether a record passes every given filter (the embedded store filters in memory). */
export function matchesFilter(record: AuditRecord, filter: AuditFilter = {}): boolean {
  if (filter.actor !== undefined && record.actor !== filter.actor) return false;
  if (filter.action !== undefined && record.action !== filter.action) return false;
  if (filter.attempted !== undefined && record.attempted !== filter.attempted) return false;
  if (filter.outcome !== undefined && record.outcome !== filter.outcome) return false;
  if (filter.cardId !== undefined && record.cardId !== filter.cardId) return false;
  if (filter.from !== undefined || filter.to !== undefined) {
    const at = Date.parse(record.at);
    if (filter.from !== undefined && at < filter.from) return false;
    if (filter.to !== undefined && at > filter.to) return false;
  }
  return true;
}
