// The SQL engine under the transaction index: PostgreSQL (a pg pool, shared by replicas) or the
// embedded engine (PGlite: PostgreSQL compiled to WebAssembly, in this process, persisting to
// a directory). Both take the same SQL, the same migrations and the same store; this is the
// little the store needs of either.
import { AsyncLocalStorage } from 'node:async_hooks';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { PGlite } from '@electric-sql/pglite';
import type pg from 'pg';
import type { BeforeCommit } from '../audit/audited-change';
import { keepClientErrorsHandled, postgresFailure } from '../audit/postgres-errors';

/** A statement's rows. Parameters are always bound ($1, $2…), never spliced into the text. */
export interface SqlQueryable {
  query<R extends object>(text: string, params?: readonly unknown[]): Promise<R[]>;
}

/** How background work takes its turn (`SqlEngine.background`). */
export interface BackgroundOptions {
  /** Runs before the background work asked without it that has not begun. */
  ahead?: boolean;
}

export interface SqlEngine extends SqlQueryable {
  readonly kind: 'postgres' | 'embedded';
  /**
   * Whether its work runs on the thread that answers people and reads the card service's
   * answers (the embedded engine in this thread): a statement's CPU then delays every one of
   * them, and work that can wait (a sync keeping its pages) is spaced out.
   */
  readonly sharesThread: boolean;
  /** Runs `work` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(work: (tx: SqlQueryable) => Promise<T>): Promise<T>;
  /**
   * Runs `work`, calls of this engine that can wait for people's (a sync's writes), when its
   * turn comes: on the embedded engine, which runs one statement at a time, after the one before
   * it and once no other call is out (`peopleFirst`); on PostgreSQL at once. `ahead`: before
   * the background work that was asked without it and has not begun (small work a kill makes
   * costly to have waited: a sync's kept pages before its row writes).
   */
  background<T>(work: () => Promise<T>, options?: BackgroundOptions): Promise<T>;
  /**
   * A client node-pg-migrate can drive (`query(text)` running a whole migration file, several
   * statements, and `query(text, values)`), for the time `use` runs.
   */
  withMigrationClient<T>(use: (client: MigrationClient) => Promise<T>): Promise<T>;
  /**
   * Brings the planner's statistics of `tables` up to date after many rows were written to
   * them. Without them it takes a 100,000-row table for a small one and reads a whole sub
   * account to sort out one page (120 ms a page where the index walk takes 2).
   */
  refreshStatistics(tables: readonly string[]): Promise<void>;
  close(): Promise<void>;
}

/**
 * A change's audit hook (platform/audit/audited-change.ts): a store's change runs it last in its
 * transaction, so the change and its audit record commit together or not at all.
 */
export type Audited<R> = BeforeCommit<R, SqlQueryable> | undefined;

/** `result`, once the change's audit hook (if any) has run in `tx`. */
export async function committed<R>(tx: SqlQueryable, result: R, audited: Audited<R>): Promise<R> {
  await audited?.(result, tx);
  return result;
}

export interface MigrationClient {
  query(text: string, values?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
}

/**
 * PostgreSQL through a pg pool (`createAuditPool`'s timeouts and recovery apply). A server
 * that does not answer is a `StoreUnavailableError` (503 and Retry-After), as for the audit.
 */
export function postgresEngine(pool: pg.Pool): SqlEngine {
  // An idle connection the server ended (restart, failover, a cluster stopped under a test):
  // pg drops it and the next query opens another. With no listener the pool's 'error' event
  // would end the process; createAuditPool's pools come with one that logs it.
  if (pool.listenerCount('error') === 0) pool.on('error', () => {});
  keepClientErrorsHandled(pool);
  const failed = (error: unknown) => postgresFailure(error, 'transaction index');
  return {
    kind: 'postgres',
    sharesThread: false,
    async query<R extends object>(text: string, params?: readonly unknown[]) {
      try {
        return (await pool.query<R>(text, params as unknown[] | undefined)).rows;
      } catch (error) {
        throw failed(error);
      }
    },
    async transaction<T>(work: (tx: SqlQueryable) => Promise<T>): Promise<T> {
      // The server ending the connection mid-transaction (a restart, a terminated backend):
      // the next statement fails and is told apart below (keepClientErrorsHandled keeps the
      // 'error' event itself from ending the process).
      const client = await pool.connect().catch((error: unknown) => {
        throw failed(error);
      });
      // The server's failures are told apart from what `work` throws itself (a refusal the
      // store decided on), which passes through as it is.
      const run = async <R extends object>(text: string, params?: readonly unknown[]) => {
        try {
          return (await client.query<R>(text, params as unknown[] | undefined)).rows;
        } catch (error) {
          throw failed(error);
        }
      };
      try {
        await run('BEGIN');
        const result = await work({ query: run });
        await run('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => {});
        throw error;
      } finally {
        client.release();
      }
    },
    background: (work) => work(),
    async withMigrationClient<T>(use: (client: MigrationClient) => Promise<T>): Promise<T> {
      const client = await pool.connect();
      try {
        return await use(client);
      } finally {
        client.release();
      }
    },
    // The server's autovacuum analyzes a table that changed by a tenth (and the BFF's login,
    // not the tables' owner, could not).
    refreshStatistics: async () => {},
    close: () => pool.end(),
  };
}

/**
 * The embedded engine's page cache, inside the BFF's own memory (WebAssembly memory never
 * shrinks). PostgreSQL's default, 128MB, cost about 100 MB more RSS once opened; the index's
 * files are read through the operating system's cache as well, so the smaller one costs the
 * demo's queries nothing measurable (bench/report-transaction-index.md: p50 6 ms either way).
 */
export const EMBEDDED_SHARED_BUFFERS = '32MB';

/** PGlite and its options, as every embedded engine opens it. */
async function pgliteOptions() {
  const [{ PGlite }, { pg_trgm }] = await Promise.all([
    import('@electric-sql/pglite'),
    import('@electric-sql/pglite/contrib/pg_trgm'),
  ]);
  return {
    PGlite,
    options: {
      extensions: { pg_trgm },
      startParams: [
        ...PGlite.defaultStartParams,
        '-c',
        `shared_buffers=${EMBEDDED_SHARED_BUFFERS}`,
      ],
    },
  };
}

/**
 * The embedded engine: PGlite in this process, persisting to `dataDir` (in memory without
 * one). Loaded only when asked for, so a BFF with DATABASE_URL never loads its WebAssembly.
 * PGlite serves one statement at a time; its own queue orders concurrent callers.
 *
 * In memory, `from` starts it from a cluster's image (`embeddedClusterImage`) instead of a new
 * cluster: a new one's initdb costs 4–8 s of CPU, starting from the image about 1 s, and the
 * tests open hundreds of engines.
 */
export async function embeddedEngine(
  dataDir?: string,
  { from, thread = 'this' }: { from?: Blob; thread?: 'this' | 'worker' } = {},
): Promise<SqlEngine> {
  if (dataDir) await createEmbeddedCluster(dataDir);
  if (thread === 'worker') return peopleFirst(await embeddedInWorker({ dataDir, from }));
  const { PGlite, options } = await pgliteOptions();
  const db = await PGlite.create({
    ...options,
    ...(dataDir ? { dataDir } : from ? { loadDataDir: from } : {}),
  });
  return peopleFirst(embeddedOver(db));
}

/**
 * How long no call may have been out before background work begins: the statements of one
 * request follow each other a little apart (the BFF's own work between them), and work begun in
 * such a gap would hold the next one.
 */
export const BACKGROUND_QUIET_MS = 5;
/**
 * The longest background work waits for a quiet moment: with people's calls always out (many
 * people at once) it then goes anyway, so a sync still writes.
 */
export const BACKGROUND_LONGEST_WAIT_MS = 1_000;

/**
 * `engine` (the embedded one: one statement at a time, in the order asked) with people first:
 * `background` work runs one at a time, each once no other call has been out for
 * `BACKGROUND_QUIET_MS` (at most `BACKGROUND_LONGEST_WAIT_MS` after its turn came). A call
 * asked while background work runs still waits for it: what a person waits is one background
 * work at most, where a 100,000-row first sync's writes, several sub accounts' at once, each a
 * second or more, kept a list's read waiting up to 5 s and a sign-in 6 (decision 0127; the
 * sync's writes are bounded in rows for that, `WRITE_GROUP_ROWS`). Calls made by background
 * work are its own.
 */
function peopleFirst(engine: SqlEngine): SqlEngine {
  const inBackground = new AsyncLocalStorage<true>();
  let out = 0;
  let lastEnded = 0;
  let wake: (() => void) | undefined;
  const counted = async <T>(call: () => Promise<T>): Promise<T> => {
    if (inBackground.getStore()) return call();
    out++;
    try {
      return await call();
    } finally {
      out--;
      lastEnded = performance.now();
      if (out === 0) wake?.();
    }
  };
  const quiet = async () => {
    const giveUpAt = performance.now() + BACKGROUND_LONGEST_WAIT_MS;
    for (;;) {
      const now = performance.now();
      if (now >= giveUpAt) return;
      if (out === 0 && now - lastEnded >= BACKGROUND_QUIET_MS) return;
      const until = out === 0 ? lastEnded + BACKGROUND_QUIET_MS : giveUpAt;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, Math.max(1, Math.min(until, giveUpAt) - now));
        function done() {
          clearTimeout(timer);
          wake = undefined;
          resolve();
        }
        wake = done;
      });
    }
  };
  // What waits its turn: the work asked `ahead` first, each lane in the order asked.
  const lanes = { ahead: [] as (() => Promise<void>)[], rest: [] as (() => Promise<void>)[] };
  let running = false;
  const drain = async () => {
    running = true;
    while (lanes.ahead.length + lanes.rest.length > 0) {
      await quiet();
      // Taken once its turn has come: what was asked `ahead` meanwhile goes first.
      const next = lanes.ahead.shift() ?? lanes.rest.shift();
      await next?.();
    }
    running = false;
  };
  return {
    ...engine,
    query: (text, params) => counted(() => engine.query(text, params)),
    transaction: (work) => counted(() => engine.transaction(work)),
    background<T>(work: () => Promise<T>, options?: BackgroundOptions): Promise<T> {
      // Background work's own background work is its own: it runs within it.
      if (inBackground.getStore()) return work();
      return new Promise<T>((resolve, reject) => {
        // Settles the caller's promise, never the lane's: a work that fails (or throws before
        // its promise) is its caller's alone, and the next still runs.
        const run = async () => {
          try {
            resolve(await inBackground.run(true, work));
          } catch (error) {
            reject(error);
          }
        };
        (options?.ahead ? lanes.ahead : lanes.rest).push(run);
        if (!running) void drain();
      });
    },
  };
}

/** Where the embedded engine's thread starts: its source under tsx and the tests, else the bundle's. */
function workerScript(): URL {
  return import.meta.url.endsWith('.ts')
    ? new URL('./embedded-engine-worker.mjs', import.meta.url)
    : new URL('./embedded-engine-worker.js', import.meta.url);
}

/** What the embedded engine's thread answers: a result, or a failure's own fields. */
type WorkerAnswer =
  | { id: number; ok: true; result?: unknown }
  | { id: number; ok: false; error: { message: string } & Record<string, unknown> };

/**
 * The embedded engine on a thread of its own (`embedded-engine-worker.mjs`): the same PGlite
 * and the same SQL, its WebAssembly work off the thread that answers people and reads the card
 * service (decision 0127). Every call is a message; a transaction is held open on the thread
 * from `begin` to `end`, every other caller's statements waiting as PGlite makes them wait. A
 * failure comes back as an Error with the database's fields (`code`, `constraint`…). The
 * thread keeps the process alive only while a call is out.
 */
async function embeddedInWorker(data: { dataDir?: string; from?: Blob }): Promise<SqlEngine> {
  const { Worker } = await import('node:worker_threads');
  const worker = new Worker(workerScript(), {
    workerData: {
      ...data,
      startParams: ['-c', `shared_buffers=${EMBEDDED_SHARED_BUFFERS}`],
    },
  });
  const calls = new Map<number, { resolve(result: unknown): void; reject(error: Error): void }>();
  let nextId = 1;
  let stopped: Error | undefined;
  const stop = (error: Error) => {
    stopped ??= error;
    for (const call of calls.values()) call.reject(stopped);
    calls.clear();
  };
  await new Promise<void>((resolve, reject) => {
    const failed = (error: Error) => {
      stop(error);
      reject(error);
    };
    worker.once('error', failed);
    worker.once('exit', (code) =>
      failed(new Error(`the embedded engine's thread ended before it opened (exit code ${code})`)),
    );
    worker.once('message', () => {
      worker.off('error', failed);
      worker.removeAllListeners('exit');
      resolve();
    });
  });
  worker.on('error', (error) => stop(error));
  worker.on('exit', (code) =>
    stop(new Error(`the embedded engine's thread ended (exit code ${code})`)),
  );
  worker.on('message', (answer: WorkerAnswer) => {
    const call = calls.get(answer.id);
    if (!call) return;
    calls.delete(answer.id);
    if (calls.size === 0) worker.unref();
    if (answer.ok) call.resolve(answer.result);
    else call.reject(Object.assign(new Error(answer.error.message), answer.error));
  });
  worker.unref();
  const ask = <T>(message: Record<string, unknown>) =>
    new Promise<T>((resolve, reject) => {
      if (stopped) return reject(stopped);
      const id = nextId++;
      try {
        // Structured clone refuses what a thread cannot be sent (a function among the values).
        worker.postMessage({ ...message, id });
      } catch (error) {
        return reject(error);
      }
      if (calls.size === 0) worker.ref();
      calls.set(id, { resolve: resolve as (result: unknown) => void, reject });
    });
  const query = <R extends object>(text: string, params?: readonly unknown[], tx?: number) =>
    ask<R[]>({ op: 'query', text, params, tx });
  return {
    kind: 'embedded',
    sharesThread: false,
    query: (text, params) => query(text, params),
    background: (work) => work(),
    async transaction(work) {
      const tx = await ask<number>({ op: 'begin' });
      let result: Awaited<ReturnType<typeof work>>;
      try {
        result = await work({ query: (text, params) => query(text, params, tx) });
      } catch (error) {
        await ask({ op: 'end', tx, commit: false }).catch(() => {});
        throw error;
      }
      await ask({ op: 'end', tx, commit: true });
      return result;
    },
    async withMigrationClient<T>(use: (client: MigrationClient) => Promise<T>): Promise<T> {
      return use({
        // A migration file is several statements and no values: the simple protocol (exec).
        async query(text, values) {
          if (values && values.length > 0) {
            return { rows: await query<Record<string, unknown>>(text, values) };
          }
          return { rows: await ask<Record<string, unknown>[]>({ op: 'exec', text }) };
        },
      });
    },
    async refreshStatistics(tables) {
      if (tables.length === 0) return;
      await ask({ op: 'analyze', tables: tables.map(tableName) });
    },
    async close() {
      if (stopped) return;
      try {
        await ask({ op: 'close' });
      } finally {
        stop(new Error("the embedded engine's thread was closed"));
        await worker.terminate();
      }
    },
  };
}

/** A table's name as ANALYZE takes it: an identifier of the schema's, never a person's text. */
function tableName(name: string): string {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new RangeError(`not a table's name: ${name}`);
  return name;
}

/** The engine's interface over an open PGlite. */
function embeddedOver(db: PGlite): SqlEngine {
  return {
    kind: 'embedded',
    sharesThread: true,
    background: (work) => work(),
    async query<R extends object>(text: string, params?: readonly unknown[]) {
      return (await db.query<R>(text, params as unknown[] | undefined)).rows;
    },
    transaction: (work) =>
      db.transaction((tx) =>
        work({
          query: async <R extends object>(text: string, params?: readonly unknown[]) =>
            (await tx.query<R>(text, params as unknown[] | undefined)).rows,
        }),
      ),
    async withMigrationClient<T>(use: (client: MigrationClient) => Promise<T>): Promise<T> {
      return use({
        // A migration file is several statements and no values: the simple protocol (exec).
        async query(text, values) {
          if (values && values.length > 0) {
            return { rows: (await db.query<Record<string, unknown>>(text, values)).rows };
          }
          const results = await db.exec(text);
          return { rows: (results.at(-1)?.rows ?? []) as Record<string, unknown>[] };
        },
      });
    },
    // PGlite runs no autovacuum: nothing else ever analyzes its tables. Only the tables named:
    // analyzing every table of the database was 1.3 of the demo's ~7 CPU s of a first sync,
    // the tables that sync writes 0.65 (decision 0122).
    async refreshStatistics(tables) {
      if (tables.length === 0) return;
      await db.exec(`ANALYZE ${tables.map(tableName).join(', ')}`);
    },
    close: () => db.close(),
  };
}

/**
 * A new in-memory cluster's image (a tar of its directory), for `embeddedEngine`'s `from`: empty,
 * or as `prepare` leaves it (the tests' image with every migration applied).
 */
export async function embeddedClusterImage(
  prepare?: (engine: SqlEngine) => Promise<unknown>,
): Promise<Blob> {
  const { PGlite, options } = await pgliteOptions();
  const db = await PGlite.create(options);
  try {
    await prepare?.(embeddedOver(db));
    return await db.dumpDataDir('none');
  } finally {
    await db.close();
  }
}

/**
 * Creates the embedded engine's cluster in `dataDir` when it has none, in a child process.
 * PGlite's initdb holds a second WebAssembly instance beside the server's: done in the BFF it
 * took the process to 700–850 MB for a moment at its first start, and a memory limit set for
 * its steady 300–400 MB would end it there. The child exits before the BFF opens the cluster.
 */
async function createEmbeddedCluster(dataDir: string): Promise<void> {
  if (existsSync(join(dataDir, 'PG_VERSION'))) return;
  const pglite = createRequire(import.meta.url).resolve('@electric-sql/pglite');
  const code = `const { PGlite } = require(${JSON.stringify(pglite)});
PGlite.create({ dataDir: ${JSON.stringify(dataDir)} })
  .then((db) => db.close())
  .catch((error) => { console.error(error); process.exit(1); });`;
  try {
    await promisify(execFile)(process.execPath, ['-e', code], { timeout: 120_000 });
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr?.trim();
    throw new Error(
      `could not create the transaction index's embedded engine in ${dataDir}${stderr ? `: ${stderr}` : ''}`,
      { cause: error },
    );
  }
}
