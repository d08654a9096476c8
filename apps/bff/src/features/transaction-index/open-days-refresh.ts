// The open days read again in the background: a sync of the transaction index starts when
// someone reads it, so without a reader nothing new would reach the index, and the alerts
// (which evaluate what a sync writes) would say nothing of a decline until someone opened a
// list. While `due()` says so (an alert rule is on), every `everyMs` this asks for the open
// days to be read as a read of the index does: those read the index's refresh age ago or
// more are synced, one job per sub account across replicas, at the card service's pace
// behind people's own requests.
import type { Logger } from 'pino';
import { newRequestId } from '../../platform/request-ids';

export interface OpenDaysRefreshOptions {
  everyMs: number;
  /** Whether to read anything now (an alert rule is on, the engine is open). */
  due: () => Promise<boolean>;
  /** Asks for the open days to be read again (the search service's `refreshOpenDays`). */
  refresh: (requestId: string) => Promise<void>;
  /** Aborted at shutdown: no tick starts after it. */
  signal: AbortSignal;
  logger: Pick<Logger, 'warn' | 'debug'>;
}

/** Starts the ticks; they stop when `signal` aborts. A tick still running skips the next. */
export function keepOpenDaysFresh(o: OpenDaysRefreshOptions): void {
  if (o.everyMs <= 0 || o.signal.aborted) return;
  let running = false;
  const tick = async () => {
    if (running || o.signal.aborted) return;
    running = true;
    // Never a card number in the id it is logged and sent with (request-ids.ts says why).
    const requestId = `open-days-${newRequestId()}`;
    try {
      if (await o.due()) {
        await o.refresh(requestId);
        o.logger.debug({ requestId }, 'open days asked for again for the alerts');
      }
    } catch (error) {
      o.logger.warn(
        { err: error, requestId },
        'the open days were not asked for again; the alerts wait for the next try or a read',
      );
    } finally {
      running = false;
    }
  };
  const timer = setInterval(() => void tick(), o.everyMs);
  timer.unref();
  o.signal.addEventListener('abort', () => clearInterval(timer), { once: true });
}
