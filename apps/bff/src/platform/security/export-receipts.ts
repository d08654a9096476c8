import type { ExportReceipt } from '@card-console/shared/api/transactions';

/**
 * How long a finished export's receipt is kept: the SPA asks for it as soon as it has read the
 * body, so this only has to outlast a slow download's last bytes and the question after them.
 */
export const EXPORT_RECEIPT_TTL_MS = 15 * 60_000;

/**
 * What each finished CSV export produced, by its request id and the person who ran it. A
 * receipt is written only after the export's last row and before its response ends, so a
 * download that was cut (even one a proxy in front ended cleanly) has none, or one whose
 * `bytes` differ from what arrived. Shared by every replica when the store is (PostgreSQL).
 */
export interface ExportReceipts {
  /** Keeps `receipt` for `ttlMs` (a later record for the same export replaces it). */
  record(person: string, requestId: string, receipt: ExportReceipt): Promise<void>;
  /** The receipt `person` recorded for `requestId`; undefined when missing, lapsed or another's. */
  find(person: string, requestId: string): Promise<ExportReceipt | undefined>;
}

/**
 * One key per person and export. A request id never holds "/" (`exportRequestIdSchema`), so
 * the last "/" separates the two whatever the person's address holds.
 */
export const receiptKey = (person: string, requestId: string) => `${person}/${requestId}`;

export interface MemoryExportReceiptsOptions {
  ttlMs?: number;
  /** Receipts kept at most; past it the oldest goes first (its export is the longest done). */
  maxEntries?: number;
  now?: () => number;
}

/** In-process receipts: one BFF. Lapsed ones are dropped as new ones come; the count is capped. */
export class MemoryExportReceipts implements ExportReceipts {
  // Map order is insertion order, and every entry lives the same ttl, so the first entry is
  // always the next to lapse (or the oldest to drop).
  protected readonly entries = new Map<string, { receipt: ExportReceipt; until: number }>();
  private readonly ttlMs: number;
  private readonly maxEntries: number;
  private readonly now: () => number;

  constructor(options: MemoryExportReceiptsOptions = {}) {
    this.ttlMs = options.ttlMs ?? EXPORT_RECEIPT_TTL_MS;
    this.maxEntries = options.maxEntries ?? 10_000;
    this.now = options.now ?? Date.now;
  }

  async record(person: string, requestId: string, receipt: ExportReceipt): Promise<void> {
    const key = receiptKey(person, requestId);
    this.entries.delete(key); // re-inserted last: its lapse comes last too
    this.entries.set(key, { receipt: { ...receipt }, until: this.now() + this.ttlMs });
    const now = this.now();
    for (const [oldest, entry] of this.entries) {
      if (entry.until > now && this.entries.size <= this.maxEntries) break;
      this.entries.delete(oldest);
    }
  }

  async find(person: string, requestId: string): Promise<ExportReceipt | undefined> {
    const entry = this.entries.get(receiptKey(person, requestId));
    if (!entry || entry.until <= this.now()) return undefined;
    return { ...entry.receipt };
  }
}
