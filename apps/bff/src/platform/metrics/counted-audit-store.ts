import type { AuditStore } from '../audit/audit-store';
import type { Metrics } from './metrics';

/**
 * An audit store that reports every record it failed to store (`bff_audit_write_failures_total`,
 * by action), whatever the store underneath. A failed write already fails the request that
 * needed it (a reveal is never answered without its record); the count is what tells an
 * operator that the trail itself is in trouble.
 */
export function countAuditFailures(store: AuditStore, metrics: Metrics): AuditStore {
  return {
    async append(record) {
      try {
        return await store.append(record);
      } catch (error) {
        metrics.auditWriteFailed(record.action);
        throw error;
      }
    },
    list: (options) => store.list(options),
  };
}
