// A record as the audit screen shows it. The trail keeps records as they were written, and an
// older build's guard let some card numbers through (digit groups joined by two spaces, colons,
// ` - `): the screen shows every text of a record through today's matcher, masked. Ids, times
// and the request id are shown as they are.
import type { AuditRecord } from '@card-console/shared/api/audit';
import { maskCardNumbers } from '../../platform/security/card-numbers';

const asWritten = new Set(['id', 'at', 'requestId']);

function masked(value: unknown): unknown {
  if (typeof value === 'string') return maskCardNumbers(value);
  if (Array.isArray(value)) return value.map(masked);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, v]) => [key, masked(v)]));
  }
  return value;
}

/** `record` with every text but its id, time and request id masked by the one matcher. */
export function shownRecord(record: AuditRecord): AuditRecord {
  return Object.fromEntries(
    Object.entries(record).map(([key, value]) => [key, asWritten.has(key) ? value : masked(value)]),
  ) as AuditRecord;
}
