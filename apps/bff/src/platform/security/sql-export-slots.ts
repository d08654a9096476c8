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
 * Export caps counted across every replica: a row per running export, expiring at its
 * lifetime's end by the database's clock. Taking a slot locks the table against other takers
 * (plain reads go on), drops lapsed rows, checks both caps and inserts in one transaction, so
 * replicas asking at once never pass a cap together. A replica that dies holding a slot frees
 * it at the slot's lifetime: the lifetime is the one bound, held or not.
 */
export class SqlExportSlots implements ExportSlots {
  private readonly lifetimeMs: number;

  constructor(
    private readonly engine: SqlEngine,
    private readonly caps: ExportCaps,
  ) {
    this.lifetimeMs = caps.lifetimeMs ?? EXPORT_SLOT_LIFETIME_MS;
  }

  async acquire(person: string): Promise<ExportSlot> {
    const id = randomUUID();
    const outcome = await this.engine.transaction(async (tx) => {
      await tx.query('LOCK TABLE export_slot IN SHARE ROW EXCLUSIVE MODE');
      await tx.query('DELETE FROM export_slot WHERE expires_at <= clock_timestamp()');
      const [row] = await tx.query<{ outcome: Outcome }>(
        `WITH counts AS (
           SELECT count(*) FILTER (WHERE person = $2) AS mine, count(*) AS total FROM export_slot),
         taken AS (
           INSERT INTO export_slot (id, person, expires_at)
           SELECT $1, $2, clock_timestamp() + $5 * interval '1 millisecond' FROM counts
            WHERE mine < $3 AND total < $4
           RETURNING id)
         SELECT CASE WHEN mine >= $3 THEN 'person' WHEN total >= $4 THEN 'total'
                     ELSE 'granted' END AS outcome
           FROM counts`,
        [id, person, this.caps.perPerson, this.caps.total, this.lifetimeMs],
      );
      return row?.outcome;
    });
    if (outcome === 'person' || outcome === 'total') return { granted: false, full: outcome };
    return heldSlot(this.lifetimeMs, async () => {
      // A release that cannot reach the database is not the export's failure: the row lapses.
      await this.engine.query('DELETE FROM export_slot WHERE id = $1', [id]).catch(() => {});
    });
  }
}
