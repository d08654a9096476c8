// The PostgreSQL worker: pg-boss queues and schedules the outbox's deliveries for every replica
// (alert-delivery.ts says why this is once). Each replica relays the pending rows it sees into
// pg-boss (a job id derived from the key: a row relayed by two replicas is one job), and works
// the queue: pg-boss gives a job to one worker at a time, retries it with exponential backoff,
// and takes it back from a worker that died (its expiry) so another replica finishes it.
import { createHash } from 'node:crypto';
import pg from 'pg';
import { INDEX_WRITER_ROLE } from '../transaction-index/postgres-index';
import {
  type AlertDeliveryDeps,
  type AlertDeliveryWorker,
  createDeliveryCore,
  EMAIL_OFF,
} from './alert-delivery';

export const ALERT_DELIVERY_QUEUE = 'alert-delivery';

/** How long a row relayed into pg-boss waits before it is relayed again (a lost job). */
const RELAY_AGAIN_MS = 60 * 60_000;
const DIGEST_EVERY_MS = 15 * 60_000;

/** A UUID made from the key: the same delivery is the same pg-boss job, from any replica. */
export function jobIdOf(key: string): string {
  const hex = createHash('sha256').update(key).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

type PgBoss = import('pg-boss');
type QueueOptions = Parameters<PgBoss['createQueue']>[1] & { name: string };

/**
 * Creates the queue unless it exists. Replicas starting together may each try: pg-boss's
 * creation of one queue by two sessions at once can end in a deadlock or a duplicate, which
 * means another replica is making it; look again shortly.
 */
async function ensureQueue(boss: PgBoss, queue: QueueOptions): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    if (await boss.getQueue(queue.name)) return;
    try {
      await boss.createQueue(queue.name, queue);
      return;
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (attempt >= 5 || (code !== '40P01' && code !== '23505')) throw error;
      await new Promise((r) => setTimeout(r, 100 * attempt + Math.random() * 100));
    }
  }
}

export function pgBossDeliveryWorker(
  deps: AlertDeliveryDeps & {
    /** The database pg-boss keeps its schema (`pgboss`) and jobs in: the index's. */
    connectionString: string;
    /**
     * The schema owner's URL (DATABASE_MIGRATION_URL): pg-boss's schema and queue are made or
     * brought up to date with it, and the index writer role is granted their use, so the BFF's
     * own login needs no right to create anything. Unset: the BFF's login makes them itself.
     */
    migrationConnectionString?: string | undefined;
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
        { id: jobIdOf(delivery.key), retryLimit: deps.settings.maxAttempts - 1 },
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
      const queue: QueueOptions = {
        name: ALERT_DELIVERY_QUEUE,
        policy: 'standard',
        retryLimit: deps.settings.maxAttempts - 1,
        retryDelay: retryDelaySeconds,
        retryBackoff: true,
        expireInSeconds: 15 * 60,
      };
      const owner = deps.migrationConnectionString;
      if (owner) {
        const setup = new PgBoss({
          connectionString: owner,
          max: 1,
          supervise: false,
          schedule: false,
          application_name: 'card-console-alerts-setup',
        });
        setup.on('error', () => {});
        await setup.start();
        try {
          await ensureQueue(setup, queue);
        } finally {
          await setup.stop({ graceful: false, wait: true });
        }
        const pool = new pg.Pool({ connectionString: owner, max: 1 });
        try {
          // One replica at a time: grants made at once by two sessions can collide.
          await pool.query(
            `BEGIN;
             SELECT pg_advisory_xact_lock(hashtext('card-console alert queue grants'));
             GRANT USAGE ON SCHEMA pgboss TO ${INDEX_WRITER_ROLE};
             GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA pgboss TO ${INDEX_WRITER_ROLE};
             GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA pgboss TO ${INDEX_WRITER_ROLE};
             COMMIT`,
          );
        } finally {
          await pool.end();
        }
      }
      const instance = new PgBoss({
        connectionString: deps.connectionString,
        max: 4,
        application_name: 'card-console-alerts',
        // With the owner's URL the schema is made above; the BFF's login only uses it.
        migrate: !owner,
      });
      instance.on('error', (error: Error) =>
        deps.logger.error(
          { err: { name: error.name, message: error.message } },
          'alert queue error',
        ),
      );
      await instance.start();
      if (!owner) await ensureQueue(instance, queue);
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
