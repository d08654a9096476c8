import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lineSink } from '../../test/capture';
import { migratedMemoryEngine } from '../../test/engines/embedded';
import {
  postgresReplicas,
  type SqlReplicas,
  unreachablePostgres,
} from '../../test/engines/sql-replicas';
import { createLogger } from '../logger';
import type { SqlEngine } from '../sql/sql-engine';
import { StoreUnavailableError } from '../store-unavailable';
import { LockWaitTimeoutError } from './keyed-lock';
import { keyedLockContract } from './keyed-lock.contract';
import { SqlKeyedLock } from './sql-keyed-lock';

// Each replica logs in holding card_console_index_writer only, as the BFF does; the owner (a
// superuser) looks at the server's locks and ends connections.
let postgres: SqlReplicas;
let one: SqlEngine;
let two: SqlEngine;
const replica = (max = 8) => postgres.replica(max);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const until = async (done: () => boolean | Promise<boolean>) => {
  while (!(await done())) await sleep(5);
};
beforeAll(async () => {
  postgres = await postgresReplicas();
  one = postgres.a;
  two = postgres.b;
}, 120_000);
afterAll(async () => {
  await postgres?.close();
});

const admin = {
  query: async <R extends object>(text: string, params?: unknown[]) => ({
    rows: await postgres.owner.query<R>(text, params),
  }),
};

/** Backends holding (granted) or waiting for an advisory lock now. */
const advisory = async (granted: boolean) =>
  (
    await admin.query<{ pid: number }>(
      "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted = $1",
      [granted],
    )
  ).rows.map((r) => r.pid);

function errorLog() {
  const lines: string[] = [];
  return { logger: createLogger('error', lineSink(lines)), lines };
}

keyedLockContract('SqlKeyedLock', (waitMs) => new SqlKeyedLock(one, { waitMs }), {
  // Two pools on one database: two replicas.
  replicas: (waitMs) => [new SqlKeyedLock(one, { waitMs }), new SqlKeyedLock(two, { waitMs })],
  // Several round trips' worth: a waiter wrongly let in would have started by then.
  quiet: () => sleep(100),
});

describe('SqlKeyedLock', () => {
  it("a holder whose replica's connection died mid-task frees the key at once", async () => {
    const doomed = replica(2);
    const gone = new SqlKeyedLock(doomed, { waitMs: 60_000 });
    let started = false;
    void gone
      .run('card:1', () => {
        started = true;
        return new Promise(() => {}); // never ends: the replica died while it ran
      })
      .catch(() => {});
    await until(() => started);
    const [holder] = await advisory(true);
    const survivor = new SqlKeyedLock(two, { waitMs: 60_000 });
    const log: string[] = [];
    const waiting = survivor.run('card:1', async () => {
      log.push('ran');
      return 'ran';
    });
    await until(async () => (await advisory(false)).length === 1);
    expect(log).toEqual([]);
    await admin.query('SELECT pg_terminate_backend($1)', [holder]);
    expect(await waiting).toBe('ran');
    // Its pool waits for the task that never ends; the replica is gone, not closed.
    void doomed.close();
  });

  it('the wait is bounded by the database for a key another replica holds, and the waiter leaves its queue', async () => {
    let finish: () => void = () => {};
    let started = false;
    const held = new SqlKeyedLock(one, { waitMs: 60_000 }).run('card:1', () => {
      started = true;
      return new Promise<void>((resolve) => (finish = resolve));
    });
    await until(() => started);
    const impatient = new SqlKeyedLock(two, { waitMs: 150 });
    const began = performance.now();
    const refusals = await Promise.allSettled(
      Array.from({ length: 10 }, () => impatient.run('card:1', async () => 'ran')),
    );
    expect(
      refusals.every((r) => r.status === 'rejected' && r.reason instanceof LockWaitTimeoutError),
    ).toBe(true);
    // One replica queues its own waiters: all ten gave up within about one bound, not ten.
    expect(performance.now() - began).toBeLessThan(1_000);
    expect(await advisory(false)).toEqual([]);
    finish();
    await held;
    expect(await advisory(true)).toEqual([]);
  });

  it('nothing is held once every task settled, whether it passed or failed', async () => {
    const lock = new SqlKeyedLock(two, { waitMs: 60_000 });
    const settled = await Promise.allSettled(
      Array.from({ length: 60 }, (_, i) =>
        lock.run(`card:${i % 6}`, async () => {
          if (i % 3 === 0) throw new Error('refused');
          return i;
        }),
      ),
    );
    expect(settled.filter((s) => s.status === 'fulfilled')).toHaveLength(40);
    expect(await advisory(true)).toEqual([]);
  });

  it("a connection lost as the task ends does not turn the task's result into a failure; it is logged once", async () => {
    const { logger, lines } = errorLog();
    const lock = new SqlKeyedLock(one, { waitMs: 60_000, logger });
    const result = await lock.run('card:1', async () => {
      const [holder] = await advisory(true);
      await admin.query('SELECT pg_terminate_backend($1)', [holder]);
      return 'saved';
    });
    expect(result).toBe('saved');
    expect(lines.map((line) => JSON.parse(line))).toMatchObject([
      {
        lock: 'card:1',
        msg: "lock's connection failed as its task ended: the lock was released with it",
      },
    ]);
  });

  it('without a connection a task is refused with StoreUnavailableError and never runs', async () => {
    const down = await unreachablePostgres();
    let ran = false;
    try {
      const error = await new SqlKeyedLock(down, { waitMs: 60_000 })
        .run('card:1', async () => {
          ran = true;
        })
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(error).toBeInstanceOf(StoreUnavailableError);
      expect(ran).toBe(false);
    } finally {
      await down.close();
    }
  });

  it('refuses the embedded engine, whose one connection a held lock would stall', async () => {
    const embedded = await migratedMemoryEngine();
    try {
      expect(() => new SqlKeyedLock(embedded, { waitMs: 1_000 })).toThrow(/PostgreSQL/);
    } finally {
      await embedded.close();
    }
  });
});
