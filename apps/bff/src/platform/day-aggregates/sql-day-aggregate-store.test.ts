import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migratedMemoryEngine } from '../../test/engines/embedded';
import {
  pass,
  postgresReplicas,
  type SqlReplicas,
  unreachablePostgres,
} from '../../test/engines/sql-replicas';
import type { SqlEngine } from '../sql/sql-engine';
import { StoreUnavailableError } from '../store-unavailable';
import type { DayAggregate, DayAggregateStore } from './day-aggregate-store';
import { aggregate, dayAggregateStoreContract } from './day-aggregate-store.contract';
import {
  DAY_AGGREGATE_VERSION,
  SqlDayAggregateStore,
  SWEPT_PER_WRITE,
} from './sql-day-aggregate-store';

// Replicas log in holding card_console_index_writer only: a missing GRANT fails the tests.
let pg: SqlReplicas;
let one: SqlEngine;
let two: SqlEngine;
let embedded: SqlEngine;
beforeAll(async () => {
  [pg, embedded] = await Promise.all([postgresReplicas(), migratedMemoryEngine()]);
  [one, two] = [pg.a, pg.b];
}, 120_000);
afterAll(async () => {
  await embedded?.close();
  await pg?.close();
});

const emptied = async (engine: SqlEngine) => {
  await engine.query('DELETE FROM insights_day_series');
};

// Each day put by one replica and read by the other.
dayAggregateStoreContract('SqlDayAggregateStore on PostgreSQL', async () => {
  await emptied(one);
  const [writer, reader] = [new SqlDayAggregateStore(one), new SqlDayAggregateStore(two)];
  return {
    get: (...args) => reader.get(...args),
    put: (...args) => writer.put(...args),
  } satisfies DayAggregateStore;
});

dayAggregateStoreContract('SqlDayAggregateStore on PGlite', async () => {
  await emptied(embedded);
  return new SqlDayAggregateStore(embedded);
});

const day = (i: number) => new Date(Date.UTC(2026, 0, 1 + i)).toISOString().slice(0, 10);
const list = (from: number, n: number) => Array.from({ length: n }, (_, i) => day(from + i));
let subs = 0;
const freshSub = () => `sub_sql_${++subs}`;

async function insertDay(sub: string, d: string, value: string, version = DAY_AGGREGATE_VERSION) {
  await one.query(
    `INSERT INTO insights_day_series VALUES ($1, $2, 'UTC', now() + interval '1 hour')
     ON CONFLICT DO NOTHING`,
    [version, sub],
  );
  await one.query(`INSERT INTO insights_day VALUES ($1, $2, 'UTC', $3, $4)`, [
    version,
    sub,
    d,
    value,
  ]);
}

const countDays = async (sub: string) => {
  const [row] = await one.query<{ n: string }>(
    'SELECT count(*)::text AS n FROM insights_day WHERE sub_account_id = $1',
    [sub],
  );
  return Number(row?.n);
};

describe('SqlDayAggregateStore', () => {
  it('a value it did not write is unknown, so the day is walked again', async () => {
    const sub = freshSub();
    await insertDay(sub, '2026-01-01', 'not json');
    await insertDay(sub, '2026-01-02', '{"day":"x","final":true}');
    // Written before days carried when they were walked: how fresh it is cannot be told.
    const { walkedAt: _w, ...old } = aggregate('2026-01-03');
    await insertDay(sub, '2026-01-03', JSON.stringify(old));
    await insertDay(sub, '2026-01-04', JSON.stringify(aggregate('2026-01-04')));
    const got = await new SqlDayAggregateStore(two).get(sub, 'UTC', list(0, 4));
    expect([...got.keys()]).toEqual(['2026-01-04']);
  });

  it('days of another version are never read, and a write leaves them be', async () => {
    const sub = freshSub();
    await insertDay(sub, '2026-01-01', JSON.stringify(aggregate('2026-01-01', 1)), 1);
    const store = new SqlDayAggregateStore(one);
    expect((await store.get(sub, 'UTC', ['2026-01-01'])).size).toBe(0);
    await store.put(sub, 'UTC', [aggregate('2026-01-01', 2)]);
    expect((await store.get(sub, 'UTC', ['2026-01-01'])).get('2026-01-01')?.money.card.cents).toBe(
      2,
    );
    const versions = await one.query<{ version: number; aggregate: string }>(
      'SELECT version, aggregate FROM insights_day WHERE sub_account_id = $1 ORDER BY version',
      [sub],
    );
    expect(versions.map((v) => [v.version, JSON.parse(v.aggregate).money.card.cents])).toEqual([
      [1, 1],
      [DAY_AGGREGATE_VERSION, 2],
    ]);
  });

  it('renews its expiry, by the database clock, on every write', async () => {
    const sub = freshSub();
    const store = new SqlDayAggregateStore(one, { ttlMs: 60_000 });
    const expiry = async () => {
      const [row] = await one.query<{ left: number; at: string }>(
        `SELECT extract(epoch FROM expires_at - now())::float8 * 1000 AS left, expires_at::text AS at
           FROM insights_day_series WHERE sub_account_id = $1`,
        [sub],
      );
      return row;
    };
    await store.put(sub, 'UTC', [aggregate('2026-01-01')]);
    const first = await expiry();
    expect(first?.left).toBeGreaterThan(50_000);
    expect(first?.left).toBeLessThanOrEqual(60_000);
    await pass(20);
    await store.put(sub, 'UTC', [aggregate('2026-01-02')]);
    const second = await expiry();
    expect(second?.at && first?.at && second.at > first.at).toBe(true);
  });

  it('an expired series is not read, nor brought back by a write, and a later write deletes it', async () => {
    const [sub, other] = [freshSub(), freshSub()];
    const short = new SqlDayAggregateStore(one, { ttlMs: 300 });
    await short.put(sub, 'UTC', [aggregate('2026-01-01')]);
    expect((await short.get(sub, 'UTC', ['2026-01-01'])).size).toBe(1);
    await short.put(other, 'UTC', [aggregate('2026-01-01')]);
    await pass(450);
    expect((await short.get(sub, 'UTC', ['2026-01-01'])).size).toBe(0);
    await short.put(sub, 'UTC', [aggregate('2026-01-02')]);
    const got = await short.get(sub, 'UTC', ['2026-01-01', '2026-01-02']);
    expect([...got.keys()]).toEqual(['2026-01-02']);
    expect(await countDays(sub)).toBe(1);
    // `other` was swept by that write, days and all.
    expect(await countDays(other)).toBe(0);
    expect(
      await one.query('SELECT 1 FROM insights_day_series WHERE sub_account_id = $1', [other]),
    ).toEqual([]);
  });

  it(`a write deletes at most ${SWEPT_PER_WRITE} expired series`, async () => {
    await emptied(one);
    const expired = SWEPT_PER_WRITE + 30;
    await one.query(
      `INSERT INTO insights_day_series
       SELECT $1, 'sub_old_' || i, 'UTC', now() - interval '1 minute' FROM generate_series(1, $2::int) AS i`,
      [DAY_AGGREGATE_VERSION, expired],
    );
    await new SqlDayAggregateStore(two).put(freshSub(), 'UTC', [aggregate('2026-01-01')]);
    const [left] = await one.query<{ n: string }>(
      `SELECT count(*)::text AS n FROM insights_day_series WHERE expires_at <= now()`,
    );
    expect(Number(left?.n)).toBe(expired - SWEPT_PER_WRITE);
  });

  it('a series past its bound of days starts over from the days just written', async () => {
    const sub = freshSub();
    const store = new SqlDayAggregateStore(one, { maxDays: 10 });
    await store.put(
      sub,
      'UTC',
      list(0, 8).map((d) => aggregate(d)),
    );
    await store.put(
      sub,
      'UTC',
      list(8, 2).map((d) => aggregate(d)),
    );
    expect((await store.get(sub, 'UTC', list(0, 10))).size).toBe(10);
    await store.put(
      sub,
      'UTC',
      list(100, 5).map((d) => aggregate(d)),
    );
    expect(await countDays(sub)).toBe(5);
    expect((await store.get(sub, 'UTC', list(100, 5))).size).toBe(5);
    // One write larger than the bound keeps all it wrote.
    await store.put(
      sub,
      'UTC',
      list(200, 12).map((d) => aggregate(d)),
    );
    expect(await countDays(sub)).toBe(12);
  });

  it('a day given twice in one write is stored once, the last given', async () => {
    const sub = freshSub();
    const store = new SqlDayAggregateStore(one);
    await store.put(sub, 'UTC', [aggregate('2026-01-01', 1), aggregate('2026-01-01', 2)]);
    expect((await store.get(sub, 'UTC', ['2026-01-01'])).get('2026-01-01')?.money.card.cents).toBe(
      2,
    );
  });

  it('writes of one series at once from two replicas all land, within the bound', async () => {
    const sub = freshSub();
    const [a, b] = [
      new SqlDayAggregateStore(one, { maxDays: 1_000 }),
      new SqlDayAggregateStore(two, { maxDays: 1_000 }),
    ];
    await Promise.all(list(0, 40).map((d, i) => (i % 2 ? a : b).put(sub, 'UTC', [aggregate(d)])));
    expect((await a.get(sub, 'UTC', list(0, 40))).size).toBe(40);

    const bounded = freshSub();
    const [c, d] = [
      new SqlDayAggregateStore(one, { maxDays: 10 }),
      new SqlDayAggregateStore(two, { maxDays: 10 }),
    ];
    await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        (i % 2 ? c : d).put(
          bounded,
          'UTC',
          list(i * 4, 4).map((x) => aggregate(x)),
        ),
      ),
    );
    const kept = await countDays(bounded);
    expect(kept).toBeGreaterThanOrEqual(4);
    expect(kept).toBeLessThanOrEqual(10);
  });

  it('keeps any name the card service sends, a NUL inside it too', async () => {
    const sub = freshSub();
    const odd: DayAggregate = {
      ...aggregate('2026-01-01'),
      merchants: { 'Bad\u0000Name ✓': [1, 1] },
    };
    const store = new SqlDayAggregateStore(one);
    await store.put(sub, 'UTC', [odd]);
    expect((await store.get(sub, 'UTC', ['2026-01-01'])).get('2026-01-01')).toEqual(odd);
  });

  it('without a database, reads and writes fail with StoreUnavailableError', async () => {
    const gone = await unreachablePostgres();
    const store = new SqlDayAggregateStore(gone);
    try {
      await expect(store.get('sub_1', 'UTC', ['2026-01-01'])).rejects.toBeInstanceOf(
        StoreUnavailableError,
      );
      await expect(store.put('sub_1', 'UTC', [aggregate('2026-01-01')])).rejects.toBeInstanceOf(
        StoreUnavailableError,
      );
    } finally {
      await gone.close();
    }
  });
});
