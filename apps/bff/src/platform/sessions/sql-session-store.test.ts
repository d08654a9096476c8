import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { pass, unreachablePostgres, useBothEngines } from '../../test/engines/sql-replicas';
import { StoreUnavailableError } from '../store-unavailable';
import type { SessionRecord } from './session-store';
import { sessionStoreContract } from './session-store.contract';
import { SESSION_SWEEP_BATCH, SqlSessionStore } from './sql-session-store';

const both = useBothEngines();

// Two pools on one database: two replicas. Expiry is the database's, so real time passes.
sessionStoreContract('SqlSessionStore on PostgreSQL', async () => ({
  a: new SqlSessionStore(both.postgres.a),
  b: new SqlSessionStore(both.postgres.b),
  pass,
}));

// One process: both views share its one embedded engine.
sessionStoreContract('SqlSessionStore on the embedded engine', async () => ({
  a: new SqlSessionStore(both.embedded),
  b: new SqlSessionStore(both.embedded),
  pass,
}));

const engines = [
  { name: 'PostgreSQL', replicas: () => both.postgres },
  {
    name: 'the embedded engine',
    replicas: () => ({ a: both.embedded, b: both.embedded, owner: both.embedded }),
  },
];

describe.each(engines)('SqlSessionStore on $name', ({ replicas }) => {
  it("gives the row the session's remaining lifetime as its expiry, and never the key itself", async () => {
    const { a, owner } = replicas();
    await new SqlSessionStore(a).set('lifetime-key', sampleRecord, 900_000);
    const rows = await owner.query<{ key_hash: string; ms: number }>(
      `SELECT key_hash, extract(epoch FROM expires_at - now()) * 1000 AS ms
       FROM session_record WHERE key_hash = $1`,
      [sha256('lifetime-key')],
    );
    expect(rows).toHaveLength(1);
    expect(Number(rows[0]?.ms)).toBeGreaterThan(890_000);
    expect(Number(rows[0]?.ms)).toBeLessThanOrEqual(900_000);
    const named = await owner.query(
      `SELECT 1 FROM session_record WHERE key_hash = 'lifetime-key' OR record::text LIKE '%lifetime-key%'`,
    );
    expect(named).toEqual([]);
  });

  it('reads a record it cannot understand as no session, not a failure', async () => {
    const { a, owner } = replicas();
    const store = new SqlSessionStore(a);
    const odd = [
      { email: 'a@example.test' },
      { ...sampleRecord, role: 'owner' },
      { ...sampleRecord, createdAt: 'yesterday' },
    ];
    for (const [i, record] of odd.entries()) {
      await owner.query(
        `INSERT INTO session_record VALUES ($1, $2::text::jsonb, now() + interval '1 hour')`,
        [sha256(`odd-${i}`), JSON.stringify(record)],
      );
      expect(await store.get(`odd-${i}`)).toBeUndefined();
    }
    // What is not a JSON object never reaches the table.
    await expect(
      owner.query(`INSERT INTO session_record VALUES ($1, '{not json', now())`, [sha256('x')]),
    ).rejects.toThrow();
    await expect(
      owner.query(`INSERT INTO session_record VALUES ($1, '[1]', now())`, [sha256('y')]),
    ).rejects.toThrow(/check constraint/);
  });

  it('a row past its expiry is no session and is not refreshed, and a set over it starts afresh', async () => {
    const { a, b, owner } = replicas();
    await owner.query(
      `INSERT INTO session_record VALUES ($1, $2::text::jsonb, now() - interval '1 millisecond')`,
      [sha256('just-lapsed'), JSON.stringify(sampleRecord)],
    );
    await new SqlSessionStore(b).refresh('just-lapsed', sampleRecord, 60_000);
    expect(await new SqlSessionStore(a).get('just-lapsed')).toBeUndefined();
    const again = { ...sampleRecord, createdAt: 3, lastSeenAt: 3 };
    await new SqlSessionStore(b).set('just-lapsed', again, 60_000);
    expect(await new SqlSessionStore(a).get('just-lapsed')).toEqual(again);
  });

  it('each write deletes up to its batch of expired rows, never a live one, so they cannot pile up', async () => {
    const { a, b, owner } = replicas();
    await owner.query(
      `INSERT INTO session_record
       SELECT encode(sha256(('abandoned-' || i)::bytea), 'hex'), '{}'::jsonb,
              now() - interval '1 day' + i * interval '1 second'
       FROM generate_series(1, $1::int) AS i`,
      [SESSION_SWEEP_BATCH * 2 + 5],
    );
    const count = async () => {
      const [row] = await owner.query<{ expired: string; live: string }>(
        `SELECT count(*) FILTER (WHERE expires_at <= now()) AS expired,
                count(*) FILTER (WHERE expires_at > now()) AS live FROM session_record`,
      );
      return { expired: Number(row?.expired), live: Number(row?.live) };
    };
    const before = await count();
    await new SqlSessionStore(a).set('sweeper-1', sampleRecord, 60_000);
    expect(await count()).toEqual({
      expired: before.expired - SESSION_SWEEP_BATCH,
      live: before.live + 1,
    });
    for (let i = 2; i <= before.expired; i++) {
      await new SqlSessionStore(i % 2 ? a : b).set(`sweeper-${i}`, sampleRecord, 60_000);
      if ((await count()).expired === 0) break;
    }
    const after = await count();
    expect(after.expired).toBe(0);
    expect(await new SqlSessionStore(b).get('sweeper-1')).toEqual(sampleRecord);
  });

  it('keeps keys of any length and character apart, and takes them as data, never as SQL', async () => {
    const { a, b } = replicas();
    const long = 'k'.repeat(20_000);
    const keys = [long, `${long}x`, "'); DELETE FROM session_record; --", 'nul\u0000byte', '🔑'];
    for (const [i, key] of keys.entries()) {
      await new SqlSessionStore(a).set(
        key,
        { ...sampleRecord, email: `p${i}@example.test` },
        60_000,
      );
    }
    const read = await Promise.all(keys.map((key) => new SqlSessionStore(b).get(key)));
    expect(read.map((r) => r?.email)).toEqual(keys.map((_, i) => `p${i}@example.test`));
    await new SqlSessionStore(b).delete(long);
    expect(await new SqlSessionStore(a).get(long)).toBeUndefined();
    expect((await new SqlSessionStore(a).get(`${long}x`))?.email).toBe('p1@example.test');
  });
});

describe('SqlSessionStore on PostgreSQL, replicas at once', () => {
  it('a sign-out on one replica racing activity on the other never brings the session back', async () => {
    const [a, b] = [new SqlSessionStore(both.postgres.a), new SqlSessionStore(both.postgres.b)];
    const keys = Array.from({ length: 30 }, (_, i) => `raced-${i}`);
    await Promise.all(keys.map((key) => a.set(key, sampleRecord, 60_000)));
    await Promise.all(
      keys.flatMap((key, i) => [
        (i % 2 ? a : b).delete(key),
        (i % 2 ? b : a).refresh(key, { ...sampleRecord, lastSeenAt: 3 }, 60_000),
      ]),
    );
    expect(await Promise.all(keys.map((key) => a.get(key)))).toEqual(keys.map(() => undefined));
  });

  it('without the server every call fails with StoreUnavailableError, never as "no session"', async () => {
    const engine = await unreachablePostgres();
    const store = new SqlSessionStore(engine);
    try {
      await expect(store.get('k')).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(store.set('k', sampleRecord, 1_000)).rejects.toBeInstanceOf(
        StoreUnavailableError,
      );
      await expect(store.refresh('k', sampleRecord, 1_000)).rejects.toBeInstanceOf(
        StoreUnavailableError,
      );
      await expect(store.delete('k')).rejects.toBeInstanceOf(StoreUnavailableError);
    } finally {
      await engine.close();
    }
  });
});

const sampleRecord: SessionRecord = {
  email: 'ada@example.test',
  role: 'finance',
  createdAt: 1,
  lastSeenAt: 2,
};

function sha256(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}
