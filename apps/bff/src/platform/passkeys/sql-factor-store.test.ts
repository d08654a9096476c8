import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migratedMemoryEngine } from '../../test/engines/embedded';
import {
  postgresReplicas,
  type SqlReplicas,
  unreachablePostgres,
} from '../../test/engines/sql-replicas';
import type { SqlEngine } from '../sql/sql-engine';
import { StoreUnavailableError } from '../store-unavailable';
import { MAX_PASSKEYS_PER_PERSON, type StoredPasskey } from './factor-store';
import { factorStoreContract } from './factor-store.contract';
import { SqlFactorStore } from './sql-factor-store';

// Replicas log in holding card_console_index_writer only: a missing GRANT fails the tests.
let pg: SqlReplicas;
let embedded: SqlEngine;
beforeAll(async () => {
  [pg, embedded] = await Promise.all([postgresReplicas(), migratedMemoryEngine()]);
}, 120_000);
afterAll(async () => {
  await embedded?.close();
  await pg?.close();
});

// Two pools on one database: two replicas.
factorStoreContract('SqlFactorStore on PostgreSQL', async () => ({
  a: new SqlFactorStore(pg.a),
  b: new SqlFactorStore(pg.b),
}));

// One process: both views are the one engine.
factorStoreContract('SqlFactorStore on PGlite', async () => {
  const store = new SqlFactorStore(embedded);
  return { a: store, b: store };
});

const passkey: StoredPasskey = {
  id: 'AbC-123_x',
  publicKey: 'pQECAyYgASFYIA',
  counter: 3,
  transports: ['usb'],
  name: 'YubiKey',
  createdAt: 1_760_000_000_000,
};

let people = 0;
const freshEmail = () => `sql-${++people}-${Date.now().toString(36)}@example.test`;

describe('SqlFactorStore', () => {
  it('keeps a row per person and per passkey, and no row for a person it holds nothing for', async () => {
    const store = new SqlFactorStore(pg.a);
    const email = freshEmail();
    await store.addPasskey(email, passkey);
    await store.setTotpDisabled(email, true);
    expect(
      await pg.b.query('SELECT email, totp_disabled FROM person_factors WHERE email = $1', [email]),
    ).toEqual([{ email, totp_disabled: true }]);
    expect(
      await pg.b.query(
        `SELECT id, email, public_key, counter::text, transports, name, created_at::text, last_used_at
           FROM person_passkey WHERE email = $1`,
        [email],
      ),
    ).toEqual([
      {
        id: passkey.id,
        email,
        public_key: passkey.publicKey,
        counter: '3',
        transports: ['usb'],
        name: 'YubiKey',
        created_at: '1760000000000',
        last_used_at: null,
      },
    ]);
    await store.setTotpDisabled(email, false);
    expect(await store.removePasskey(email, passkey.id)).toBe('removed');
    // Refusals and no-ops leave no row behind either.
    const stranger = freshEmail();
    expect(await store.setTotpDisabled(stranger, true)).toBe('no_passkey');
    expect(await store.removePasskey(stranger, 'nothing')).toBe('not_found');
    expect(await store.setTotpDisabled(stranger, false)).toBe('unchanged');
    expect(
      await pg.b.query('SELECT email FROM person_factors WHERE email = ANY($1::text[])', [
        [email, stranger],
      ]),
    ).toEqual([]);
  });

  it('the database itself refuses a row the store could not read back', async () => {
    const email = freshEmail();
    await new SqlFactorStore(embedded).addPasskey(email, { ...passkey, id: 'kept-row' });
    const insert = (columns: Record<string, unknown>) => {
      const row = {
        id: 'fine',
        email,
        public_key: 'AAAA',
        counter: 0,
        transports: null,
        name: 'x',
        created_at: 0,
        ...columns,
      };
      return embedded.query(
        `INSERT INTO person_passkey (id, email, public_key, counter, transports, name, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7)`,
        Object.values(row),
      );
    };
    for (const bad of [
      { id: 'not base64url!' },
      { public_key: 'a+b/c=' },
      { counter: -1 },
      { counter: '9007199254740992' },
      { created_at: -1 },
      { transports: [] },
      { transports: ['usb', null] },
      { email: 'nobody@example.test' },
    ]) {
      await expect(insert(bad), JSON.stringify(bad)).rejects.toThrow(
        /violates (check|foreign key) constraint/,
      );
    }
    await expect(
      embedded.query('INSERT INTO person_factors (email) VALUES ($1)', ['Ada@Example.test']),
    ).rejects.toThrow(/violates check constraint/);
    expect((await new SqlFactorStore(embedded).get(email)).passkeys).toHaveLength(1);
  });

  it('a row it cannot read (one an older, looser schema let in) costs that passkey, not the read', async () => {
    const email = freshEmail();
    const store = new SqlFactorStore(pg.a);
    await store.addPasskey(email, { ...passkey, id: 'readable-one' });
    // Inside a transaction that is rolled back: the table keeps its checks for everyone else.
    const rolledBack = new Error('rolled back');
    await expect(
      pg.owner.transaction(async (tx) => {
        await tx.query('ALTER TABLE person_passkey DROP CONSTRAINT person_passkey_counter_check');
        await tx.query(
          `INSERT INTO person_passkey (id, email, public_key, counter, name, created_at)
           VALUES ('broken-one', $1, 'AAAA', -5, 'Broken', 1)`,
          [email],
        );
        const inTx = new SqlFactorStore({
          ...pg.owner,
          query: (text, params) => tx.query(text, params),
        });
        expect((await inTx.get(email)).passkeys.map((p) => p.id)).toEqual(['readable-one']);
        throw rolledBack;
      }),
    ).rejects.toBe(rolledBack);
  });

  it('the audit hook runs last, before the change is committed: no replica sees it until then', async () => {
    const [a, b] = [new SqlFactorStore(pg.a), new SqlFactorStore(pg.b)];
    const email = freshEmail();
    const key = { ...passkey, id: `hook-${people}` };
    const seenDuringHook: number[] = [];
    expect(
      await a.addPasskey(email, key, async () => {
        seenDuringHook.push((await b.get(email)).passkeys.length);
      }),
    ).toBe('added');
    expect(seenDuringHook).toEqual([0]);
    expect((await b.get(email)).passkeys).toEqual([key]);
  });

  it('adds, removes, TOTP switches and uses at once on both replicas keep every rule', async () => {
    const stores = [pg.a, pg.b].map((e) => new SqlFactorStore(e));
    const email = freshEmail();
    const ids = Array.from({ length: 24 }, (_, i) => `storm-${people}-${i}`);
    const calls = ids.flatMap((id, i) => {
      const store = stores[i % 2] as SqlFactorStore;
      const other = stores[(i + 1) % 2] as SqlFactorStore;
      return [
        store.addPasskey(email, { ...passkey, id, createdAt: i }),
        other.setTotpDisabled(email, i % 4 !== 0),
        other.recordUse(email, id, i + 10, i),
        store.removePasskey(email, ids[i - 1] ?? id),
      ];
    });
    await Promise.all(calls);
    const [after] = await pg.owner.query<{ n: string; off: boolean }>(
      `SELECT count(p.id)::text AS n, bool_or(f.totp_disabled) AS off
         FROM person_factors f LEFT JOIN person_passkey p ON p.email = f.email
        WHERE f.email = $1`,
      [email],
    );
    const n = Number(after?.n ?? 0);
    expect(n).toBeLessThanOrEqual(MAX_PASSKEYS_PER_PERSON);
    // Never TOTP off with no passkey left.
    expect(after?.off === true && n === 0).toBe(false);
    const factors = await stores[0]?.get(email);
    expect(factors?.passkeys).toHaveLength(n);
  });

  it('without a database every call fails with StoreUnavailableError', async () => {
    const gone = await unreachablePostgres();
    const store = new SqlFactorStore(gone);
    const email = 'ada@example.test';
    try {
      for (const call of [
        () => store.get(email),
        () => store.addPasskey(email, passkey),
        () => store.renamePasskey(email, passkey.id, 'x'),
        () => store.removePasskey(email, passkey.id),
        () => store.setTotpDisabled(email, true),
        () => store.recordUse(email, passkey.id, 1, 1),
      ]) {
        await expect(call()).rejects.toBeInstanceOf(StoreUnavailableError);
      }
    } finally {
      await gone.close();
    }
  });
});
