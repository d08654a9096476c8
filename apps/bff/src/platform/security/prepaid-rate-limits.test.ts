// A limit every request spends (`prepaid`, the API's per-person limit) on PostgreSQL: points
// taken a chunk at a time, so requests do not write each time; never more than the limit let
// through across replicas, bursts included; with the database stopped, each replica's local
// limit stands in.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../env';
import { silentLogger } from '../../test/audit-cluster';
import { type PostgresEngine, startPostgres } from '../../test/engines/postgres';
import { applyIndexMigrations } from '../sql/index-migrations';
import { postgresEngine, type SqlEngine } from '../sql/sql-engine';
import { RateLimiterRes } from './rate-limiter-classes';
import { createRateLimiters } from './rate-limits';
import { sqlRateLimiters } from './sql-rate-limiters';

let server: PostgresEngine;
let url: string;
const engines: SqlEngine[] = [];
const replica = () => {
  const engine = postgresEngine(
    new pg.Pool({ connectionString: url, max: 6, connectionTimeoutMillis: 3_000 }),
  );
  engines.push(engine);
  return engine;
};
beforeAll(async () => {
  server = await startPostgres();
  url = await server.createDatabase('limits');
  const owner = replica();
  await applyIndexMigrations(owner, silentLogger);
}, 120_000);
afterAll(async () => {
  await Promise.all(engines.map((e) => e.close()));
  await server?.destroy();
});

let names = 0;
const freshName = () => `prepaid-${++names}`;

/** An engine that counts the counter writes sent through it. */
function counted(engine: SqlEngine) {
  const counter = { writes: 0, engine: { ...engine } as SqlEngine };
  counter.engine.query = (text, params) => {
    if (text.includes('INSERT INTO rate_limit_counter')) counter.writes++;
    return engine.query(text, params);
  };
  return counter;
}

const outcome = (attempt: Promise<unknown>) =>
  attempt.then(
    () => 'through' as const,
    (error: unknown) => {
      if (error instanceof RateLimiterRes) return 'refused' as const;
      throw error;
    },
  );

describe('a prepaid limit on PostgreSQL', () => {
  it("the API's per-person limit is prepaid: 300 a minute writes once every 15 requests", async () => {
    const db = counted(replica());
    const { rateLimits } = loadConfig({ DEMO_MODE: '1', API_RATE_LIMIT_PER_MINUTE: '300' });
    const limiters = createRateLimiters(sqlRateLimiters(db.engine), rateLimits, {
      absoluteMs: 60_000,
    });
    const person = `${freshName()}@example.test`;
    for (let i = 0; i < 45; i++) await limiters.apiPerUser.consume(person);
    expect(db.writes).toBe(3);
    expect((await limiters.apiPerUser.get(person))?.consumedPoints).toBe(45);
  });

  it('a limit not prepaid still writes each time', async () => {
    const db = counted(replica());
    const limiter = sqlRateLimiters(db.engine)({
      keyPrefix: freshName(),
      points: 300,
      duration: 60,
    });
    for (let i = 0; i < 5; i++) await limiter.consume('x');
    expect(db.writes).toBe(5);
  });

  it('120 requests at once split across two replicas at a limit of 40: at most 40 through, at most a chunk less one per replica short of it', async () => {
    const options = { keyPrefix: freshName(), points: 40, duration: 60, prepaid: true };
    const [a, b] = [sqlRateLimiters(replica())(options), sqlRateLimiters(replica())(options)];
    const results = await Promise.all(
      Array.from({ length: 120 }, (_, i) => outcome((i % 2 ? a : b).consume('ada'))),
    );
    const through = results.filter((r) => r === 'through').length;
    expect(through).toBeLessThanOrEqual(40);
    // The chunk is 2 (a 20th of 40): each replica may hold one point unspent.
    expect(through).toBeGreaterThanOrEqual(38);
  });

  it('a burst of 30 at once on one replica takes its chunks one after another, and all 30 pass a limit of 30', async () => {
    const db = counted(replica());
    const limiter = sqlRateLimiters(db.engine)({
      keyPrefix: freshName(),
      points: 30,
      duration: 60,
      prepaid: true,
    });
    const results = await Promise.all(
      Array.from({ length: 30 }, () => outcome(limiter.consume('ada'))),
    );
    expect(results.filter((r) => r === 'through')).toHaveLength(30);
    // Chunks of 1 (a 20th of 30, rounded down): one write each, none taken twice.
    expect(db.writes).toBe(30);
    expect(await outcome(limiter.consume('ada'))).toBe('refused');
  });

  it('a chunk the counter cannot hold whole lets through what fits, then refuses', async () => {
    const options = { keyPrefix: freshName(), points: 100, duration: 60, prepaid: true };
    const [a, b] = [sqlRateLimiters(replica())(options), sqlRateLimiters(replica())(options)];
    // B takes 5 chunks of 5 and spends them all; A spends 71 at once: 96 of 100, none held.
    for (let i = 0; i < 25; i++) await b.consume('ada');
    await a.consume('ada', 71);
    expect((await a.get('ada'))?.consumedPoints).toBe(96);
    const more = [];
    for (let i = 0; i < 6; i++) more.push(await outcome(b.consume('ada')));
    expect(more).toEqual(['through', 'through', 'through', 'through', 'refused', 'refused']);
  });

  it('PostgreSQL stopped: each replica lets through its local limit and refuses past it; shared again once it is back', async () => {
    const options = { keyPrefix: freshName(), points: 40, duration: 60, prepaid: true };
    const limiter = sqlRateLimiters(replica(), { retryAfterFailureMs: 0 })(options);
    await limiter.consume('ada');
    await server.stop();
    try {
      const results = [];
      for (let i = 0; i < 45; i++) results.push(await outcome(limiter.consume('bo')));
      expect(results.filter((r) => r === 'through')).toHaveLength(40);
      expect(results.slice(40)).toEqual(Array(5).fill('refused'));
    } finally {
      await server.start();
    }
    let back = await outcome(limiter.consume('cy')).catch(() => 'failed');
    for (let i = 0; i < 50 && back !== 'through'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      back = await outcome(limiter.consume('cy')).catch(() => 'failed');
    }
    expect(back).toBe('through');
    expect((await limiter.get('cy'))?.consumedPoints).toBe(2);
  });
});
