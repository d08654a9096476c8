import type { Logger } from 'pino';
import type { Clock } from '../core/clock';
import type { AuditStore } from '../platform/audit/audit-store';
import type { KeyedLock } from '../platform/locks/keyed-lock';
import type { Metrics } from '../platform/metrics/metrics';
import type { ExportReceipts } from '../platform/security/export-receipts';
import type { ExportSlots } from '../platform/security/export-slots';
import type { StepUp } from '../platform/security/step-up';
import type { UpstreamClient } from '../upstream/client';
import type { WalkGate } from '../upstream/walk-gate';
import type { CardDirectory } from './cards/card-directory';

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
