// The PostgreSQL worker: pg-boss queues and schedules the outbox's deliveries for every replica
// (alert-delivery.ts says why this is once). Each replica relays the pending rows it sees into
// pg-boss (a job id derived from the key: a row relayed by two replicas is one job), and works
// the queue: pg-boss gives a job to one worker at a time, retries it with exponential backoff,
// and takes it back from a worker that died (its expiry) so another replica finishes it.
import { createHash } from 'node:crypto';
import {
  type AlertDeliveryDeps,
  type AlertDeliveryWorker,
  createDeliveryCore,
  EMAIL_OFF,
} from './alert-delivery';
import { ALERT_DELIVERY_QUEUE, AlertQueueSetupError } from './alert-queue-schema';

/** How long a row relayed into pg-boss waits before it is relayed again (a lost job). */
const RELAY_AGAIN_MS = 60 * 60_000;
const DIGEST_EVERY_MS = 15 * 60_000;

/** A UUID made from the key: the same delivery is the same pg-boss job, from any replica. */
export function jobIdOf(key: string): string {
  const hex = createHash('sha256').update(key).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

type PgBoss = import('pg-boss');

export function pgBossDeliveryWorker(
  deps: AlertDeliveryDeps & {
    /**
     * The database pg-boss keeps its schema (`pgboss`) and jobs in: the index's. `pnpm migrate`
     * made both (alert-queue-schema.ts); this login only uses them.
     */
    connectionString: string;
  },
): AlertDeliveryWorker & { relayOnce(): Promise<void> } {
  const core = createDeliveryCore(deps);
  let boss: PgBoss | undefined;
  let timer: NodeJS.Timeout | undefined;
  let relaying: Promise<void> | undefined;
  let lastDigests = 0;
  const retryDelaySeconds = Math.max(1, Math.round(deps.settings.retryBaseMs / 1000));

  async function relay(): Promise<void> {
    if (!boss) return;
    const outbox = (await deps.alerts()).deliveries;
    const now = deps.clock.now();
    if (now - lastDigests >= DIGEST_EVERY_MS) {
      lastDigests = now;
      await core.writeDigests(outbox);
    }
    for (const delivery of await outbox.due(new Date(now), 100)) {
      await boss.send(
        ALERT_DELIVERY_QUEUE,
        { key: delivery.key },
        {
          id: jobIdOf(delivery.key),
          retryLimit: deps.settings.maxAttempts - 1,
          retryDelay: retryDelaySeconds,
          retryBackoff: true,
        },
      );
      await outbox.postpone(delivery.key, new Date(now + RELAY_AGAIN_MS));
    }
  }

  const relayOnce = () => {
    relaying ??= relay()
      .catch((error: unknown) =>
        deps.logger.error({ err: error }, 'alert deliveries not relayed; trying at the next poll'),
      )
      .finally(() => {
        relaying = undefined;
      });
    return relaying;
  };

  return {
    relayOnce,
    async start() {
      const { default: PgBoss } = await import('pg-boss');
      const instance = new PgBoss({
        connectionString: deps.connectionString,
        max: 4,
        application_name: 'card-console-alerts',
        // The schema is `pnpm migrate`'s: pg-boss checks its version and changes nothing.
        migrate: false,
      });
      instance.on('error', (error: Error) =>
        deps.logger.error(
          { err: { name: error.name, message: error.message } },
          'alert queue error',
        ),
      );
      await instance.start().catch((error: unknown) => {
        throw new AlertQueueSetupError(
          `the alert queue could not start (${(error as Error).message}): its schema is made by \`pnpm migrate\``,
          { cause: error },
        );
      });
      await instance.work<{ key: string }>(
        ALERT_DELIVERY_QUEUE,
        {
          includeMetadata: true,
          batchSize: 1,
          pollingIntervalSeconds: Math.max(0.5, deps.settings.pollMs / 1000),
        },
        async (jobs) => {
          for (const job of jobs) {
            const outbox = (await deps.alerts()).deliveries;
            const delivery = await outbox.get(job.data.key);
            // Settled already (sent by an earlier job of the same key): nothing to do.
            if (delivery?.state !== 'pending') continue;
            try {
              await core.send(delivery, outbox);
              await outbox.settle(delivery.key, 'sent', new Date(deps.clock.now()));
            } catch (error) {
              const failure = core.failureOf(error);
              const attempt = job.retryCount + 1;
              const log = { ...core.described(delivery), attempt, reason: failure.reason };
              if (failure.retryable && job.retryCount < job.retryLimit) {
                deps.logger.warn(log, 'alert delivery failed; trying again later');
                await outbox.postpone(
                  delivery.key,
                  new Date(deps.clock.now() + RELAY_AGAIN_MS),
                  failure.reason,
                );
                // pg-boss retries the job after its backoff.
                throw new Error(`alert delivery failed: ${failure.reason}`);
              }
              if (failure.reason === EMAIL_OFF)
                deps.logger.info(log, 'alert email not sent: no SMTP');
              else deps.logger.error(log, 'alert delivery failed for good');
              await outbox.settle(
                delivery.key,
                'failed',
                new Date(deps.clock.now()),
                failure.reason,
              );
            }
          }
        },
      );
      boss = instance;
      timer = setInterval(() => void relayOnce(), deps.settings.pollMs);
      timer.unref();
      void relayOnce();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
      await relaying;
      const instance = boss;
      boss = undefined;
      await instance?.stop({ graceful: true, wait: true, timeout: 5_000 });
    },
  };
}
