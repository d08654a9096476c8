import type { ExportReceipt } from '@card-console/shared/api/transactions';
import type { Request, Response } from 'express';
import type { Logger } from 'pino';
import { AppError } from '../../core/app-error';
import type { Metrics } from '../../platform/metrics/metrics';
import type { Who } from '../../platform/sessions/who';
import type { FeatureDeps } from '../feature-deps';

/**
 * Seconds a refused export is told to wait. Exports have no known end, so this is a hint: an
 * export of the demo's 20,000 rows takes about a second, a large one over a slow service more.
 */
export const EXPORT_BUSY_RETRY_SECONDS = 10;

/** What streaming an export to the response needs, whichever export it is. */
export interface ExportStreamContext {
  logger: Logger;
  requestId: string;
  traceId?: string;
  /** Aborted when the response closes (the client left, or it was destroyed here). */
  clientGone: AbortSignal;
  /** Aborted when a shutdown's grace period ends with the export still running. */
  cutOff: AbortSignal;
  metrics: Metrics;
  /** Called once every row has been generated, before the response ends; may reject. */
  recordReceipt: (receipt: ExportReceipt) => Promise<void>;
}

/** Watches the response for its close; the receipt is recorded under the person and request. */
export function exportStreamContext(
  req: Request,
  res: Response,
  person: Who,
  deps: Pick<FeatureDeps, 'logger' | 'cutOff' | 'metrics' | 'exportReceipts'>,
): ExportStreamContext {
  const gone = new AbortController();
  res.on('close', () => gone.abort());
  // An export is piped into the response (stream/promises' pipeline), which adds seven 'close'
  // listeners of its own to it (its destroyer, end-of-stream twice, the pipe): with the server's
  // four (the request log, the drain's count, this one, Node's own), eleven, one past
  // EventEmitter's default of ten, and Node warned of a leak on every download.
  res.setMaxListeners(Math.max(res.getMaxListeners(), 20));
  return {
    logger: deps.logger,
    requestId: person.requestId,
    traceId: req.trace?.traceId,
    clientGone: gone.signal,
    cutOff: deps.cutOff,
    metrics: deps.metrics,
    recordReceipt: (receipt) =>
      deps.exportReceipts.record(person.actor.email, person.requestId, receipt),
  };
}

/** What an export slot watches of the response: its close, and breaking it off. */
interface ClosingResponse {
  once(event: 'close', listener: () => void): unknown;
  off(event: 'close', listener: () => void): unknown;
  destroy(): unknown;
}

/**
 * Runs an export in one of the person's export slots (one cap per person, whatever the export
 * walks). Taken before any upstream call or byte: the extra exports are refused, not queued.
 *
 * The slot is given back at the first of: the export ending (finished or failed, before or
 * after the first byte), the response closing (the client went away: a browser's Cancel never
 * costs a slot, even while the export is still winding down), or the slot's lifetime running
 * out, which also breaks the download off, so no export runs uncounted.
 */
export async function withExportSlot(
  deps: Pick<FeatureDeps, 'exportSlots' | 'metrics' | 'logger'>,
  person: Who,
  res: ClosingResponse,
  run: () => Promise<void>,
): Promise<void> {
  const slot = await deps.exportSlots.acquire(person.actor.email);
  if (!slot.granted) throw exportBusy(slot.full);
  const ended = deps.metrics.exportStarted();
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    res.off('close', release);
    slot.expired.removeEventListener('abort', expire);
    ended();
    void slot.release();
  };
  const expire = () => {
    deps.logger.warn(
      { requestId: person.requestId },
      'export cut: it held its export slot for the longest an export may run',
    );
    deps.metrics.exportCut('lifetime');
    res.destroy();
    release();
  };
  res.once('close', release);
  slot.expired.addEventListener('abort', expire, { once: true });
  try {
    await run();
  } finally {
    release();
  }
}

function exportBusy(full: 'person' | 'total'): AppError {
  const message =
    full === 'person'
      ? 'Your other exports are still running. Try again when one of them finishes.'
      : 'Too many exports are running right now. Try again in a few seconds.';
  return new AppError(429, 'export_busy', message, {
    retryAfterSeconds: EXPORT_BUSY_RETRY_SECONDS,
  });
}
