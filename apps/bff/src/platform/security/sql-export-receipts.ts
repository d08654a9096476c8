import { type ExportReceipt, exportReceiptSchema } from '@card-console/shared/api/transactions';
import type { SqlEngine } from '../sql/sql-engine';
import { EXPORT_RECEIPT_TTL_MS, type ExportReceipts } from './export-receipts';

export interface SqlExportReceiptsOptions {
  ttlMs?: number;
  /** Lapsed receipts deleted by each record, at most: the table never grows past what lives. */
  sweepBatch?: number;
}

/**
 * Receipts every replica sees (the download may be read through one replica and the receipt
 * asked of another), one row per person and request id, lapsing by the database's clock.
 * Each record deletes a bounded batch of lapsed rows in the same statement.
 */
export class SqlExportReceipts implements ExportReceipts {
  private readonly ttlMs: number;
  private readonly sweepBatch: number;

  constructor(
    private readonly engine: SqlEngine,
    options: SqlExportReceiptsOptions = {},
  ) {
    this.ttlMs = options.ttlMs ?? EXPORT_RECEIPT_TTL_MS;
    this.sweepBatch = options.sweepBatch ?? 100;
  }

  async record(person: string, requestId: string, receipt: ExportReceipt): Promise<void> {
    // The swept rows exclude this one: one statement may not both delete and upsert a row.
    await this.engine.query(
      `WITH swept AS (
         DELETE FROM export_receipt WHERE (person, request_id) IN (
           SELECT person, request_id FROM export_receipt
            WHERE expires_at <= clock_timestamp() AND (person, request_id) <> ($1, $2)
            LIMIT $6 FOR UPDATE SKIP LOCKED))
       INSERT INTO export_receipt (person, request_id, row_count, byte_count, expires_at)
       VALUES ($1, $2, $3, $4, clock_timestamp() + $5 * interval '1 millisecond')
       ON CONFLICT (person, request_id) DO UPDATE SET
         row_count = excluded.row_count,
         byte_count = excluded.byte_count,
         expires_at = excluded.expires_at`,
      [person, requestId, receipt.rows, receipt.bytes, this.ttlMs, this.sweepBatch],
    );
  }

  async find(person: string, requestId: string): Promise<ExportReceipt | undefined> {
    const [row] = await this.engine.query<{ rows: string; bytes: string }>(
      `SELECT row_count AS rows, byte_count AS bytes FROM export_receipt
        WHERE person = $1 AND request_id = $2 AND expires_at > clock_timestamp()`,
      [person, requestId],
    );
    if (!row) return undefined;
    // Not something this store could have written: no proof that an export finished.
    const parsed = exportReceiptSchema.safeParse({
      rows: Number(row.rows),
      bytes: Number(row.bytes),
    });
    return parsed.success ? parsed.data : undefined;
  }
}
