import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { pass, unreachablePostgres, useBothEngines } from '../../test/engines/sql-replicas';
import type { SqlEngine } from '../sql/sql-engine';
import { StoreUnavailableError } from '../store-unavailable';
import { ONE_TIME_LIMITS, type OneTimeKind } from './one-time-store';
import { oneTimeStoreContract } from './one-time-store.contract';
import { SqlOneTimeStore } from './sql-one-time-store';

const both = useBothEngines();

const engines = [
  { name: 'PostgreSQL', replicas: () => both.postgres },
  {
    name: 'the embedded engine',
    replicas: () => ({ a: both.embedded, b: both.embedded, owner: both.embedded }),
  },
];

// Each case starts from an empty table, as the bound counts every value of the kind. On
// PostgreSQL two pools on one database are two replicas; expiry is the database's, so real time
// passes.
for (const { name, replicas } of engines) {
  oneTimeStoreContract(`SqlOneTimeStore on ${name}`, async (options) => {
    const { a, b, owner } = replicas();
    await owner.query('DELETE FROM one_time_value');
    const kind = 'challenges' as const;
    return {
      a: new SqlOneTimeStore(a, { kind, ...options }),
      b: new SqlOneTimeStore(b, { kind, ...options }),
      pass,
    };
  });
}

describe.each(engines)('SqlOneTimeStore on $name', ({ replicas }) => {
  const rowsOf = async (owner: SqlEngine, kind: OneTimeKind) =>
    owner.query<{ key_hash: string; value: string; ms: number }>(
      `SELECT key_hash, value, extract(epoch FROM expires_at - now()) * 1000 AS ms
       FROM one_time_value WHERE kind = $1 ORDER BY expires_at`,
      [kind],
    );

  it('keeps the value under its kind and the hash of its key with its time to live, and removes it when taken', async () => {
    const { a, b, owner } = replicas();
    await owner.query('DELETE FROM one_time_value');
    await new SqlOneTimeStore(a, { kind: 'ssoPending' }).put('k', 'v', 600_000);
    const rows = await rowsOf(owner, 'ssoPending');
    expect(rows.map((row) => [row.key_hash, row.value])).toEqual([[sha256('k'), 'v']]);
    expect(Number(rows[0]?.ms)).toBeGreaterThan(590_000);
    expect(Number(rows[0]?.ms)).toBeLessThanOrEqual(600_000);
    expect(await rowsOf(owner, 'challenges')).toEqual([]);
    expect(await new SqlOneTimeStore(b, { kind: 'challenges' }).take('k')).toBeUndefined();
    expect(await new SqlOneTimeStore(b, { kind: 'ssoPending' }).take('k')).toBe('v');
    expect(await rowsOf(owner, 'ssoPending')).toEqual([]);
  });

  it.each(['challenges', 'ssoPending'] as const)(
    'holds %s to its own bound unless told otherwise',
    async (kind) => {
      const { a, owner } = replicas();
      await owner.query('DELETE FROM one_time_value');
      // The kind at its bound: values expiring one second apart, the soonest first.
      await owner.query(
        `INSERT INTO one_time_value
       SELECT $1, encode(sha256(('held-' || i)::bytea), 'hex'), 'held',
              now() + interval '1 hour' + i * interval '1 second'
       FROM generate_series(1, $2::int) AS i`,
        [kind, ONE_TIME_LIMITS[kind]],
      );
      const store = new SqlOneTimeStore(a, { kind });
      await store.put('newest', 'v', 7_200_000);
      const [counted] = await owner.query<{ n: string }>(
        'SELECT count(*) AS n FROM one_time_value WHERE kind = $1',
        [kind],
      );
      expect(Number(counted?.n)).toBe(ONE_TIME_LIMITS[kind]);
      expect(await store.take('held-1')).toBeUndefined();
      expect(await store.take('held-2')).toBe('held');
      expect(await store.take('newest')).toBe('v');
    },
  );

  it('a flood of one kind at its bound, from both replicas at once, never evicts the other kind’s values', async () => {
    const { a, b, owner } = replicas();
    await owner.query('DELETE FROM one_time_value');
    const challenges = new SqlOneTimeStore(a, { kind: 'challenges', limit: 5 });
    await challenges.put('a-person', 'challenge', 60_000);
    await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        new SqlOneTimeStore(i % 2 ? a : b, { kind: 'ssoPending', limit: 5 }).put(
          `flood-${i}`,
          'x'.repeat(100),
          60_000,
        ),
      ),
    );
    expect(await rowsOf(owner, 'ssoPending')).toHaveLength(5);
    expect(await challenges.take('a-person')).toBe('challenge');
  });

  it('expired values leave at the next put, so they hold no place', async () => {
    const { a, b, owner } = replicas();
    await owner.query('DELETE FROM one_time_value');
    const store = new SqlOneTimeStore(a, { kind: 'ssoPending', limit: 2 });
    // Lives long enough that the second put finds the first alive on a loaded machine (at 50 ms,
    // a clean clone's CI once saw it lapse between the two puts).
    await store.put('short-1', 'v', 1_000);
    await store.put('short-2', 'v', 1_000);
    await pass(1_100);
    expect(await rowsOf(owner, 'ssoPending')).toHaveLength(2);
    await store.put('long-1', 'v', 60_000);
    expect(await rowsOf(owner, 'ssoPending')).toHaveLength(1);
    await new SqlOneTimeStore(b, { kind: 'ssoPending', limit: 2 }).put('long-2', 'v', 60_000);
    expect(await store.take('long-1')).toBe('v');
    expect(await store.take('long-2')).toBe('v');
  });

  it('a take of an expired value removes it and hands out nothing', async () => {
    const { a, b, owner } = replicas();
    await owner.query('DELETE FROM one_time_value');
    await new SqlOneTimeStore(a, { kind: 'challenges' }).put('lapsing', 'v', 20);
    await pass(80);
    expect(await new SqlOneTimeStore(b, { kind: 'challenges' }).take('lapsing')).toBeUndefined();
    expect(await rowsOf(owner, 'challenges')).toEqual([]);
  });

  it('keeps keys of any length and character apart, and takes them as data, never as SQL', async () => {
    const { a, b } = replicas();
    const long = 'k'.repeat(20_000);
    const keys = [long, `${long}x`, "'); DELETE FROM one_time_value; --", 'nul\u0000byte', '🔑'];
    const put = new SqlOneTimeStore(a, { kind: 'challenges' });
    const take = new SqlOneTimeStore(b, { kind: 'challenges' });
    for (const [i, key] of keys.entries()) await put.put(key, `value-${i}`, 60_000);
    expect(await take.take(long)).toBe('value-0');
    expect(await take.take(long)).toBeUndefined();
    const rest = await Promise.all(keys.slice(1).map((key) => take.take(key)));
    expect(rest).toEqual(['value-1', 'value-2', 'value-3', 'value-4']);
  });

  it('refuses a bound below one value', () => {
    const { a } = replicas();
    expect(() => new SqlOneTimeStore(a, { kind: 'challenges', limit: 0 })).toThrow(RangeError);
    expect(() => new SqlOneTimeStore(a, { kind: 'challenges', limit: 1.5 })).toThrow(RangeError);
  });
});

describe('SqlOneTimeStore on PostgreSQL, replicas at once', () => {
  it('50 values, each taken by four callers at once across both replicas: each handed out exactly once', async () => {
    const [a, b] = [both.postgres.a, both.postgres.b].map(
      (engine) => new SqlOneTimeStore(engine, { kind: 'challenges' }),
    ) as [SqlOneTimeStore, SqlOneTimeStore];
    const keys = Array.from({ length: 50 }, (_, i) => `raced-${i}`);
    await Promise.all(keys.map((key, i) => (i % 2 ? a : b).put(key, `value-${i}`, 60_000)));
    const taken = await Promise.all(
      keys.flatMap((key) => [a.take(key), b.take(key), a.take(key), b.take(key)]),
    );
    expect(taken.filter((value) => value !== undefined).sort()).toEqual(
      keys.map((_, i) => `value-${i}`).sort(),
    );
  });

  it('without the server put and take fail with StoreUnavailableError, never as "absent"', async () => {
    const engine = await unreachablePostgres();
    const store = new SqlOneTimeStore(engine, { kind: 'challenges' });
    try {
      await expect(store.put('k', 'v', 60_000)).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(store.take('k')).rejects.toBeInstanceOf(StoreUnavailableError);
    } finally {
      await engine.close();
    }
  });
});

function sha256(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}
