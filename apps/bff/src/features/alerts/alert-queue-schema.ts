// The alert queue's schema on PostgreSQL: pg-boss's own (schema `pgboss`, its version in
// `pgboss.version`) and the queue `alert-delivery`, made or brought up to date by `pnpm migrate`
// as the schema owner, which grants card_console_index_writer their use. Replicas only use them
// (pg-boss started with `migrate: false`), so the BFF's login needs no right to create anything.
import { createRequire } from 'node:module';
import type pg from 'pg';
import type { Logger } from 'pino';
import { RUN_MIGRATE } from '../../platform/migrations/migration-versions';
import { loadPostgresIndex } from '../transaction-index';

export const ALERT_DELIVERY_QUEUE = 'alert-delivery';

type PgBoss = import('pg-boss');
type QueueOptions = Parameters<PgBoss['createQueue']>[1] & { name: string };

/**
 * The queue's own settings. Retries (count, delay, backoff) are set on each job from the
 * replica's configuration (ALERT_DELIVERY_*), so they need no migration to change.
 */
const QUEUE: QueueOptions = {
  name: ALERT_DELIVERY_QUEUE,
  policy: 'standard',
  retryBackoff: true,
  expireInSeconds: 15 * 60,
};

/** The schema version this build's pg-boss works with (pg-boss's version.json). */
export function alertQueueSchemaVersion(): number {
  return (createRequire(import.meta.url)('pg-boss/version.json') as { schema: number }).schema;
}

/** The alert queue cannot be used with this database; the message says what to do. */
export class AlertQueueSetupError extends Error {
  override name = 'AlertQueueSetupError';
}

/**
 * Creates the queue unless it exists. Two runs at once may each try: pg-boss's creation of one
 * queue by two sessions at once can end in a deadlock or a duplicate, which means the other is
 * making it; look again shortly.
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

/** Refuses (AlertQueueSetupError) a version this build's pg-boss did not make. */
function assertVersion(version: number | undefined, where: string): void {
  const expected = alertQueueSchemaVersion();
  if (version === undefined || version < expected) {
    throw new AlertQueueSetupError(
      `The alert queue's schema (pgboss) in ${where} is ${version === undefined ? 'not there' : `at version ${version}, behind this build's ${expected}`}: ${RUN_MIGRATE}.`,
    );
  }
  if (version > expected) {
    throw new AlertQueueSetupError(
      `The alert queue's schema (pgboss) in ${where} is at version ${version}, newer than this build's ${expected}: run the build that migrated it, or a newer one; an older build never serves a newer schema.`,
    );
  }
}

async function versionIn(query: pg.Pool | pg.Client): Promise<number | undefined> {
  const { rows } = await query.query<{ present: boolean }>(
    "SELECT to_regclass('pgboss.version') IS NOT NULL AS present",
  );
  if (!rows[0]?.present) return undefined;
  const { rows: versions } = await query.query<{ version: number }>(
    'SELECT version FROM pgboss.version',
  );
  return versions[0]?.version;
}

/**
 * `pnpm migrate`'s part for the alert queue, as the schema owner: pg-boss's schema made or
 * migrated, the queue made, and the index writer role granted their use. Returns the version.
 */
export async function setUpAlertQueue(
  ownerUrl: string,
  logger: Pick<Logger, 'info'>,
): Promise<number> {
  const { default: PgBoss } = await import('pg-boss');
  const { default: pgLib } = await import('pg');
  const { INDEX_WRITER_ROLE } = await loadPostgresIndex();
  const pool = new pgLib.Pool({ connectionString: ownerUrl, max: 1 });
  try {
    const before = await versionIn(pool);
    // A newer build's schema: pg-boss would leave it as it is; say so instead.
    if (before !== undefined && before > alertQueueSchemaVersion()) {
      assertVersion(before, 'DATABASE_MIGRATION_URL');
    }
    const setup = new PgBoss({
      connectionString: ownerUrl,
      max: 1,
      supervise: false,
      schedule: false,
      application_name: 'card-console-migrations',
    });
    setup.on('error', () => {});
    await setup.start();
    try {
      await ensureQueue(setup, QUEUE);
    } finally {
      await setup.stop({ graceful: false, wait: true });
    }
    // One run at a time: grants made at once by two sessions can collide.
    await pool.query(
      `BEGIN;
       SELECT pg_advisory_xact_lock(hashtext('card-console alert queue grants'));
       GRANT USAGE ON SCHEMA pgboss TO ${INDEX_WRITER_ROLE};
       GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA pgboss TO ${INDEX_WRITER_ROLE};
       GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA pgboss TO ${INDEX_WRITER_ROLE};
       COMMIT`,
    );
    const version = (await versionIn(pool)) ?? alertQueueSchemaVersion();
    logger.info({ migrations: 'alert-queue', version }, 'alert queue schema current');
    return version;
  } finally {
    await pool.end();
  }
}

/**
 * Start-up's check, as the BFF's login: pg-boss's schema at this build's version and the queue
 * there. A login not yet granted the index writer role is left to the worker's start, which
 * logs why it could not.
 */
export async function assertAlertQueueSchema(pool: pg.Pool): Promise<void> {
  let version: number | undefined;
  let queue = false;
  try {
    version = await versionIn(pool);
    if (version !== undefined) {
      const { rows } = await pool.query<{ present: boolean }>(
        'SELECT EXISTS (SELECT 1 FROM pgboss.queue WHERE name = $1) AS present',
        [ALERT_DELIVERY_QUEUE],
      );
      queue = rows[0]?.present === true;
    }
  } catch (error) {
    if ((error as { code?: string }).code === '42501') return;
    throw error;
  }
  assertVersion(version, 'DATABASE_URL');
  if (!queue) {
    throw new AlertQueueSetupError(
      `The alert queue ${ALERT_DELIVERY_QUEUE} is not in DATABASE_URL's database: ${RUN_MIGRATE}.`,
    );
  }
}
