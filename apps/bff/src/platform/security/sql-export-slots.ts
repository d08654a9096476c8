import { randomUUID } from 'node:crypto';
import type { SqlEngine } from '../sql/sql-engine';
import {
  EXPORT_SLOT_LIFETIME_MS,
  type ExportCaps,
  type ExportSlot,
  type ExportSlots,
  heldSlot,
} from './export-slots';

type Outcome = 'granted' | 'person' | 'total';

/**
 * Export caps counted across every replica: a row per running export, with a lease its replica
 * renews while the export runs and its lifetime's end, both by the database's clock. Taking a
 * slot locks the table against other takers (plain reads go on), drops lapsed rows, checks both
 * caps and inserts in one transaction, so replicas asking at once never pass a cap together. A
 * replica that dies holding a slot frees it when the lease lapses (`leaseMs`, 15 s by default);
 * the lifetime is the bound on every slot, renewed or not.
 */
export class SqlExportSlots implements ExportSlots {
  private readonly lifetimeMs: number;
  private readonly leaseMs: number;

  constructor(
    private readonly engine: SqlEngine,
    private readonly caps: ExportCaps,
    options: { leaseMs?: number } = {},
  ) {
    this.lifetimeMs = caps.lifetimeMs ?? EXPORT_SLOT_LIFETIME_MS;
    this.leaseMs = Math.min(options.leaseMs ?? 15_000, this.lifetimeMs);
  }

  async acquire(person: string): Promise<ExportSlot> {
    const id = randomUUID();
    const outcome = await this.engine.transaction(async (tx) => {
      await tx.query('LOCK TABLE export_slot IN SHARE ROW EXCLUSIVE MODE');
      await tx.query(
        'DELETE FROM export_slot WHERE lease_until <= clock_timestamp() OR expires_at <= clock_timestamp()',
      );
      const [row] = await tx.query<{ outcome: Outcome }>(
        `WITH counts AS (
           SELECT count(*) FILTER (WHERE person = $2) AS mine, count(*) AS total FROM export_slot),
         taken AS (
           INSERT INTO export_slot (id, person, lease_until, expires_at)
           SELECT $1, $2, clock_timestamp() + $6 * interval '1 millisecond',
                  clock_timestamp() + $5 * interval '1 millisecond' FROM counts
            WHERE mine < $3 AND total < $4
           RETURNING id)
         SELECT CASE WHEN mine >= $3 THEN 'person' WHEN total >= $4 THEN 'total'
                     ELSE 'granted' END AS outcome
           FROM counts`,
        [id, person, this.caps.perPerson, this.caps.total, this.lifetimeMs, this.leaseMs],
      );
      return row?.outcome;
    });
    if (outcome === 'person' || outcome === 'total') return { granted: false, full: outcome };
    // The database unreachable for a moment: the lease runs on, the next renewal tries again.
    const renewal = setInterval(() => {
      this.engine
        .query(
          `UPDATE export_slot SET lease_until = least(expires_at,
                  clock_timestamp() + $2 * interval '1 millisecond') WHERE id = $1`,
          [id, this.leaseMs],
        )
        .catch(() => {});
    }, this.leaseMs / 3);
    renewal.unref(); // never what keeps a stopping process alive
    return heldSlot(this.lifetimeMs, async () => {
      clearInterval(renewal);
      // A release that cannot reach the database is not the export's failure: the lease lapses.
      await this.engine.query('DELETE FROM export_slot WHERE id = $1', [id]).catch(() => {});
    });
  }
}
