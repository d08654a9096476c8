// The one way background work is run, on both engines: a worker polls a queue (a table whose
// due rows are taken with `FOR UPDATE SKIP LOCKED` and a lease by the database's clock), runs
// what it took and settles each. Alert delivery's outbox and the background jobs' table
// (the index sync) are its queues. Every replica runs a worker per queue: rows another replica
// is taking are skipped, and a row whose worker died is due again once its lease lapses.
import pLimit from 'p-limit';
import type { Logger } from 'pino';

export interface WorkQueue<T> {
  /** Named in the log: "<name> pass failed". */
  readonly name: string;
  /** Rows taken by one claim. */
  readonly batch: number;
  /** How long a claim holds its rows: past half of it, rows of the batch not begun go back. */
  readonly leaseMs: number;
  /** Rows of one batch run at once; one after another by default. */
  readonly atOnce?: number;
  /** Run before each pass (alert delivery writes the day's digests). */
  beforePass?(): Promise<void>;
  claim(limit: number): Promise<T[]>;
  /** Runs one taken row and settles it (or puts it off). */
  run(row: T): Promise<void>;
  /** Hands back a taken row not begun: due at once, for any worker. */
  release(row: T): Promise<void>;
}

export interface QueueWorker {
  /** Starts polling; resolves once the worker is ready. */
  start(): Promise<void>;
  /** Stops polling; resolves once the pass under way has settled what it began. */
  stop(): Promise<void>;
  /** One pass now (or the one under way): due rows taken a batch at a time until none are. */
  runOnce(): Promise<void>;
}

export function queueWorker<T>(
  queue: WorkQueue<T>,
  options: {
    pollMs: number;
    logger: Pick<Logger, 'error'>;
    /** False while the engine is closed: a pass waits for its first use to open it. */
    ready?: () => boolean;
  },
): QueueWorker {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let stopped = false;

  async function pass(): Promise<void> {
    if (options.ready && !options.ready()) return;
    await queue.beforePass?.();
    const limit = pLimit(queue.atOnce ?? 1);
    while (!stopped) {
      const taken = await queue.claim(queue.batch);
      const since = performance.now();
      let gaveBack = false;
      await Promise.all(
        taken.map((row) =>
          limit(async () => {
            // Stopping, or past half the lease: the rest go back, due at once for any worker.
            if (stopped || performance.now() - since > queue.leaseMs / 2) {
              gaveBack = true;
              await queue.release(row);
              return;
            }
            await queue.run(row);
          }),
        ),
      );
      if (gaveBack || taken.length < queue.batch) return;
    }
  }

  const runOnce = () => {
    running ??= pass()
      .catch((error: unknown) =>
        options.logger.error({ err: error }, `${queue.name} pass failed; trying at the next poll`),
      )
      .finally(() => {
        running = undefined;
      });
    return running;
  };

  return {
    runOnce,
    async start() {
      stopped = false;
      timer = setInterval(() => void runOnce(), options.pollMs);
      timer.unref();
      void runOnce();
    },
    async stop() {
      stopped = true;
      if (timer) clearInterval(timer);
      timer = undefined;
      await running;
    },
  };
}
