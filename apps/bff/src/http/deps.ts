import type { AuditFilter, AuditRecord } from '@card-console/shared/api/audit';
import type { PasskeyAssertion } from '@card-console/shared/api/passkeys';
import type { Request, Response } from 'express';
import type { Logger } from 'pino';
import type { CardDirectory } from '../features/cards/card-directory';
import type { KeyedLock } from '../platform/locks/keyed-lock';
import type { Metrics } from '../platform/metrics/metrics';
import type { ExportReceipts } from '../platform/security/export-receipts';
import type { ExportSlots } from '../platform/security/export-slots';
import type { UpstreamClient } from '../upstream/client';
import type { WalkGate } from '../upstream/walk-gate';

export interface Clock {
  now(): number;
}

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
   * Newest first, the records matching every given filter. `cursor` is the `id` of the last
   * record of the previous page (keyset paging: stable while new records arrive).
   */
  list(options: {
    cursor?: string;
    limit: number;
    filter?: AuditFilter;
  }): Promise<{ items: AuditRecord[]; nextCursor?: string }>;
}

/** A second factor offered with a request: a TOTP code or a passkey's assertion. */
export interface StepUpProof {
  totp?: string | undefined;
  passkey?: PasskeyAssertion | undefined;
}

/** The second-factor check a reveal (and enrolling or removing a factor) needs. */
export interface StepUp {
  /**
   * Resolves when the person behind `req` passed a second-factor check within the last
   * 5 minutes, or when `proof` passes now (then the step-up is recorded and the session id
   * rotated, with the new cookie set on `res`). Otherwise throws AppError 401
   * `step_up_required` (no proof given; `secondFactor.methods` says what may be used),
   * 401 `invalid_totp` / `invalid_passkey`, 401 `session_ended` (too many wrong proofs: the
   * session is destroyed and its cookie cleared on `res`) or 429 `rate_limited` (the
   * session's other proofs are still being checked).
   */
  require(req: Request, res: Response, proof?: StepUpProof): Promise<void>;
}

/** What every feature router is built from. */
export interface FeatureDeps {
  upstream: UpstreamClient;
  audit: AuditStore;
  stepUp: StepUp;
  logger: Logger;
  clock: Clock;
  /** Serialises work per key: one card's edits run one at a time (`card:<id>`). */
  locks: KeyedLock;
  /** Running CSV exports, capped per person and in all. */
  exportSlots: ExportSlots;
  /** What each finished export produced, asked for by the SPA to know its file is whole. */
  exportReceipts: ExportReceipts;
  metrics: Metrics;
  /** Aborted when a shutdown's grace period ends: long responses (exports) still running are cut. */
  cutOff: AbortSignal;
  /** Card id → name and last 4, for transactions (kept from the card list, never per row). */
  cardDirectory: CardDirectory;
  /** Slots for bulk walks (limit previews, Overview computations), per person and in all. */
  walkGate: WalkGate;
}
