import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../core/app-error';
import { silentLogger } from '../../test/audit-cluster';
import { lineSink } from '../../test/capture';
import { migratedMemoryEngine } from '../../test/engines/embedded';
import { type PostgresEngine, startPostgres } from '../../test/engines/postgres';
import { createLogger } from '../logger';
import { applyIndexMigrations } from '../sql/index-migrations';
import { postgresEngine, type SqlEngine } from '../sql/sql-engine';
import { StoreUnavailableError } from '../store-unavailable';
import { reserve } from './attempt-reservation';
import { RateLimiterRes } from './rate-limiter-classes';
import { rateLimitersContract } from './rate-limiters.contract';
import { consumeOrThrow } from './rate-limits';
import { sqlRateLimiters } from './sql-rate-limiters';

// A cluster of this file's own: the outage test stops it. The replicas log in holding
// card_console_index_writer only, as the BFF does; the owner applies the schema.
let server: PostgresEngine;
let url: string;
let owner: SqlEngine;
let one: SqlEngine;
let two: SqlEngine;
let embedded: SqlEngine;
const replica = () => postgresEngine(new pg.Pool({ connectionString: url, max: 6 }));
beforeAll(async () => {
  server = await startPostgres();
  const ownerUrl = await server.createDatabase('limits');
  owner = postgresEngine(new pg.Pool({ connectionString: ownerUrl, max: 2 }));
  await applyIndexMigrations(owner, silentLogger);
  await owner.query(
    "CREATE ROLE limits_app LOGIN PASSWORD 'limits' IN ROLE card_console_index_writer",
  );
  url = server.urlFor('limits', 'limits_app', 'limits');
  one = replica();
  two = replica();
  embedded = await migratedMemoryEngine();
}, 120_000);
afterAll(async () => {
  await Promise.all([owner?.close(), one?.close(), two?.close(), embedded?.close()]);
  await server?.destroy();
});

let names = 0;
const freshName = () => `sql-limit-${++names}`;

/** An engine that counts the statements sent through it. */
function counted(engine: SqlEngine) {
  const counter = { statements: 0, engine: { ...engine } as SqlEngine };
  counter.engine.query = (text, params) => {
    counter.statements++;
    return engine.query(text, params);
  };
  return counter;
}

const storedPoints = async (key: string) =>
  (
    await one.query<{ points: number }>(
      'SELECT points FROM rate_limit_counter WHERE key = $1 AND expires_at > now()',
      [key],
    )
  )[0]?.points;

// Two pools on one database: two replicas.
rateLimitersContract('sqlRateLimiters on PostgreSQL', async () => ({
  a: sqlRateLimiters(one),
  b: sqlRateLimiters(two),
}));

rateLimitersContract('sqlRateLimiters on the embedded engine', async () => ({
  a: sqlRateLimiters(embedded),
  b: sqlRateLimiters(embedded),
}));

describe('sqlRateLimiters', () => {
  it('keeps a counter per limiter and key with its window by the database clock', async () => {
    const keyPrefix = freshName();
    const limiter = sqlRateLimiters(one)({ keyPrefix, points: 20, duration: 900 });
    const res = await limiter.consume('198.51.100.4');
    expect(res.consumedPoints).toBe(1);
    expect(res.remainingPoints).toBe(19);
    expect(res.msBeforeNext).toBeGreaterThan(890_000);
    expect(res.msBeforeNext).toBeLessThanOrEqual(900_000);
    const [row] = await one.query<{ points: number; ms: number }>(
      `SELECT points, extract(epoch FROM expires_at - clock_timestamp())::float8 * 1000 AS ms
         FROM rate_limit_counter WHERE key = $1`,
      [`${keyPrefix}:198.51.100.4`],
    );
    expect(row?.points).toBe(1);
    expect(row?.ms).toBeGreaterThan(890_000);
    expect(row?.ms).toBeLessThanOrEqual(900_000);
  });

  it('a counter whose window ended starts afresh, and lapsed counters are deleted as counters are written', async () => {
    const keyPrefix = freshName();
    const limiter = sqlRateLimiters(one, { sweepEveryMs: 0 })({
      keyPrefix,
      points: 1,
      duration: 1,
    });
    await limiter.consume('k');
    await expect(limiter.consume('k')).rejects.toBeInstanceOf(RateLimiterRes);
    await one.query("INSERT INTO rate_limit_counter VALUES ($1, 9, now() - interval '1 second')", [
      `${keyPrefix}:lapsed`,
    ]);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect((await limiter.consume('k')).consumedPoints).toBe(1);
    await limiter.consume('other');
    // The sweep runs beside the write, not before its answer ("not the request's business"):
    // the lapsed counter goes in a moment, on another connection (a loaded CI machine read it
    // still there once, right after the write).
    await expect
      .poll(
        async () =>
          (
            await one.query<{ n: number }>(
              'SELECT count(*)::int AS n FROM rate_limit_counter WHERE key = $1',
              [`${keyPrefix}:lapsed`],
            )
          )[0]?.n,
        { timeout: 5_000 },
      )
      .toBe(0);
  });

  it('lapsed counters are deleted a batch at a time, and after a full batch again at the next write', async () => {
    const keyPrefix = freshName();
    // A sweep deletes any key's lapsed counters: one of the test before's (a 1-s window) lapsing
    // during this one made a batch full that this test counts as not full (a loaded CI machine
    // saw it). This test's own counters alone, then.
    await one.query('DELETE FROM rate_limit_counter');
    await one.query(
      `INSERT INTO rate_limit_counter
       SELECT $1 || ':' || i, 1, clock_timestamp() - interval '1 second' FROM generate_series(1, 5) AS i`,
      [keyPrefix],
    );
    const lapsed = async () =>
      (
        await one.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM rate_limit_counter WHERE key LIKE $1 || ':%' AND expires_at <= clock_timestamp()",
          [keyPrefix],
        )
      )[0]?.n;
    // An hour between sweeps: within the test only a full batch brings the next one.
    const limiter = sqlRateLimiters(one, { sweepEveryMs: 3_600_000, sweepBatch: 2 })({
      keyPrefix,
      points: 1_000,
      duration: 60,
    });
    const seen = new Set<number | undefined>();
    for (let writes = 0; (await lapsed()) !== 0; writes++) {
      expect(writes).toBeLessThan(200);
      await limiter.consume('live');
      seen.add(await lapsed());
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect([...seen].filter((n) => n !== 0 && n !== 5 && n !== 3 && n !== 1)).toEqual([]);
    // The last batch was not full: the next sweep waits for its interval.
    await one.query(
      "INSERT INTO rate_limit_counter VALUES ($1 || ':late', 1, clock_timestamp() - interval '1 second')",
      [keyPrefix],
    );
    for (let i = 0; i < 5; i++) await limiter.consume('live');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await lapsed()).toBe(1);
  });

  it('a key already refused is refused on that replica without asking the database, until its window ends', async () => {
    const counter = counted(one);
    const limiter = sqlRateLimiters(counter.engine, { sweepEveryMs: 3_600_000 })({
      keyPrefix: freshName(),
      points: 3,
      duration: 60,
    });
    for (let i = 0; i < 3; i++) await limiter.consume('ada@example.test');
    await expect(limiter.consume('ada@example.test')).rejects.toBeInstanceOf(RateLimiterRes);
    const asked = counter.statements;
    for (let i = 0; i < 20; i++) {
      const refusal = await limiter.consume('ada@example.test').catch((e: unknown) => e);
      expect(refusal).toBeInstanceOf(RateLimiterRes);
      expect((refusal as RateLimiterRes).msBeforeNext).toBeGreaterThan(50_000);
    }
    await expect(consumeOrThrow(limiter, 'ada@example.test', 'slow down')).rejects.toMatchObject({
      status: 429,
    });
    expect(counter.statements).toBe(asked);
    // Another key of the same limiter still goes to the database.
    await limiter.consume('bob@example.test');
    expect(counter.statements).toBe(asked + 1);
  });

  it('an attempt refused by the in-memory block and given back credits the database nothing', async () => {
    const keyPrefix = freshName();
    const limiter = sqlRateLimiters(one)({ keyPrefix, points: 2, duration: 900 });
    const counter = { limiter, key: 'ada@example.test' };
    await limiter.consume('ada@example.test');
    await limiter.consume('ada@example.test');
    // Refused by the database and kept (a per-minute limit gives nothing back): blocked here.
    await expect(limiter.consume('ada@example.test')).rejects.toBeInstanceOf(RateLimiterRes);
    for (let i = 0; i < 5; i++) expect((await reserve([counter])).ok).toBe(false);
    expect(await storedPoints(`${keyPrefix}:ada@example.test`)).toBe(3);
    // The other replica, which asks the database, is refused too.
    expect(
      (
        await reserve([
          {
            limiter: sqlRateLimiters(two)({ keyPrefix, points: 2, duration: 900 }),
            key: 'ada@example.test',
          },
        ])
      ).ok,
    ).toBe(false);
    expect(await storedPoints(`${keyPrefix}:ada@example.test`)).toBe(3);
  });

  it('without a database the limits fall back to each replica counting alone: within them requests pass, past them a refusal is a RateLimiterRes (429); shared again once it answers', async () => {
    const lines: string[] = [];
    const logger = createLogger('info', lineSink(lines));
    const engine = replica();
    const factory = sqlRateLimiters(engine, { logger, retryAfterFailureMs: 0 });
    const keyPrefix = freshName();
    const api = factory({ keyPrefix, points: 3, duration: 60 });
    const signIn = factory({ keyPrefix: freshName(), points: 2, duration: 900 });
    await api.consume('ada@example.test');
    await server.stop();
    try {
      // The replica had counted one in the database; alone it counts afresh.
      for (let i = 0; i < 3; i++)
        expect((await api.consume('ada@example.test')).consumedPoints).toBe(i + 1);
      const refused = await consumeOrThrow(api, 'ada@example.test', 'slow down').catch(
        (e: unknown) => e,
      );
      expect(refused).toBeInstanceOf(AppError);
      expect((refused as AppError).status).toBe(429);
      expect((await reserve([{ limiter: signIn, key: 'x' }])).ok).toBe(true);
      expect((await reserve([{ limiter: signIn, key: 'x' }])).ok).toBe(true);
      expect((await reserve([{ limiter: signIn, key: 'x' }])).ok).toBe(false);
    } finally {
      await server.start();
    }
    const back = factory({ keyPrefix, points: 3, duration: 60 });
    expect((await back.consume('bob@example.test')).consumedPoints).toBe(1);
    expect(await storedPoints(`${keyPrefix}:bob@example.test`)).toBe(1);
    expect(lines.map((line) => JSON.parse(line).msg)).toEqual([
      'rate limits counted by each replica alone until PostgreSQL answers again',
      'rate limits shared through PostgreSQL again',
    ]);
    await engine.close();
  }, 60_000);

  it('after a failure the local limits answer without asking the database for a moment, then it is asked again', async () => {
    let asked = 0;
    const down: SqlEngine = {
      ...one,
      query: async (text) => {
        if (text.includes('INSERT')) asked++;
        throw new StoreUnavailableError('postgres', 'test');
      },
    };
    const limiter = sqlRateLimiters(down, { retryAfterFailureMs: 300, sweepEveryMs: 3_600_000 })({
      keyPrefix: freshName(),
      points: 5,
      duration: 60,
    });
    expect((await limiter.consume('ada@example.test')).consumedPoints).toBe(1);
    expect(asked).toBe(1);
    for (let i = 2; i <= 5; i++) {
      expect((await limiter.consume('ada@example.test')).consumedPoints).toBe(i);
    }
    await expect(limiter.consume('ada@example.test')).rejects.toBeInstanceOf(RateLimiterRes);
    expect(asked).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 350));
    await limiter.consume('bob@example.test');
    expect(asked).toBe(2);
  });

  it('a statement at fault is no outage: it fails as it is, not counted locally', async () => {
    const limiter = sqlRateLimiters(one)({ keyPrefix: freshName(), points: 5, duration: 60 });
    // Past the key column's bound: the database refuses the statement, not the connection.
    const error = await limiter.consume('x'.repeat(2_000)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(RateLimiterRes);
    expect((error as { code?: string }).code).toBe('23514');
  });
});
