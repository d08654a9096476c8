import type { AuditFilter, AuditRecord } from '@card-console/shared/api/audit';

export type NewAuditRecord = Omit<AuditRecord, 'id' | 'at'>;

/**
 * Append-only, tamper-evident audit trail: every record carries the hash of the one before
 * it (`platform/audit/`). Implementations never update or delete a record. A store that
 * cannot be reached throws `StoreUnavailableError` (503), so nothing audited goes unrecorded.
 */
export interface AuditStore {
  /** Resolves once the record is durably stored (and chained); its `id` orders the trail. */
  append(record: NewAuditRecord): Promise<AuditRecord>;
  /**
   * Several records at once, chained in their order with consecutive ids: all stored (one write,
   * one commit) or none (a record the trail refuses refuses them all). A change of many rows
   * records each row in one go rather than one commit each. Absent: they are appended one by one.
   */
  appendMany?(records: readonly NewAuditRecord[]): Promise<AuditRecord[]>;
  /**
   * Newest first, the records matching every given filter. `cursor` is the `id` of the last
   * record of the previous page (keyset paging: stable while new records arrive).
   */
  list(options: {
    cursor?: string;
    limit: number;
    filter?: AuditFilter;
  }): Promise<{ items: AuditRecord[]; nextCursor?: string }>;
}
