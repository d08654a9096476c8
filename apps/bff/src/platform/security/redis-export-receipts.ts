import { type ExportReceipt, exportReceiptSchema } from '@card-console/shared/api/transactions';
import type { Redis } from 'ioredis';
import { redisCall } from '../redis/redis-errors';
import { EXPORT_RECEIPT_TTL_MS, type ExportReceipts, receiptKey } from './export-receipts';

export interface RedisExportReceiptsOptions {
  prefix: string;
  ttlMs?: number;
}

/**
 * Receipts every replica sees (the download may be read through one replica and the receipt
 * asked of another): `<prefix>export-receipt:<email>/<request id>`, a JSON value with Redis's
 * own expiry.
 */
export class RedisExportReceipts implements ExportReceipts {
  private readonly ttlMs: number;

  constructor(
    private readonly client: Redis,
    private readonly options: RedisExportReceiptsOptions,
  ) {
    this.ttlMs = options.ttlMs ?? EXPORT_RECEIPT_TTL_MS;
  }

  private key(person: string, requestId: string) {
    return `${this.options.prefix}export-receipt:${receiptKey(person, requestId)}`;
  }

  async record(person: string, requestId: string, receipt: ExportReceipt): Promise<void> {
    const value = JSON.stringify({ rows: receipt.rows, bytes: receipt.bytes });
    await redisCall('export receipt record', () =>
      this.client.set(this.key(person, requestId), value, 'PX', this.ttlMs),
    );
  }

  async find(person: string, requestId: string): Promise<ExportReceipt | undefined> {
    const value = await redisCall('export receipt find', () =>
      this.client.get(this.key(person, requestId)),
    );
    if (value === null) return undefined;
    // Not something this store wrote: no proof that an export finished.
    try {
      const parsed = exportReceiptSchema.safeParse(JSON.parse(value));
      return parsed.success ? parsed.data : undefined;
    } catch {
      return undefined;
    }
  }
}
