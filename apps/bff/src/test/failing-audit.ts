// An audit trail whose appends fail when a test says so: handed to the app in place of the real
// trail (startTestApp's and startPeopleApp's `audit` option), everything else passed through.
import type { AuditStore, NewAuditRecord } from '../platform/audit/audit-store';

export class FailingAuditStore implements AuditStore {
  /** Which appends fail (none by default); each failure throws `error()`. */
  failWhen: ((record: NewAuditRecord) => boolean) | undefined;
  error: () => Error = () => new Error('audit disk full');
  /** Every append asked for, failed or not, in order. */
  readonly asked: NewAuditRecord[] = [];

  constructor(readonly trail: AuditStore) {}

  async append(record: NewAuditRecord) {
    this.asked.push(record);
    if (this.failWhen?.(record)) throw this.error();
    return this.trail.append(record);
  }

  list(options: Parameters<AuditStore['list']>[0]) {
    return this.trail.list(options);
  }

  /** Runs `work` with appends failing `when` (all by default), then lets them through again. */
  async failing<T>(work: () => Promise<T>, when: (record: NewAuditRecord) => boolean = () => true) {
    this.failWhen = when;
    try {
      return await work();
    } finally {
      this.failWhen = undefined;
    }
  }
}
