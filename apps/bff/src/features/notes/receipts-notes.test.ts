// A receipt and the notes, over real HTTP, on both engines the notes live in: attaching or
// removing a receipt does not make the notes someone has open stale, so a memo saved on the
// version they loaded is kept; a change of the notes by someone else in between still gets the
// 409 with that person's change.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresEngine, type SqlEngine } from '../../platform/sql/sql-engine';
import { openStores } from '../../stores';
import { silentLogger } from '../../test/audit-cluster';
import { migratedMemoryEngine } from '../../test/engines/embedded';
import { testDatabase } from '../../test/engines/postgres';
import { quarterDemo, startTestApp, type TestApp, type TestSession } from '../../test/harness';
import { pdfReceipt } from '../../test/receipt-files';
import { settledIndexList } from '../../test/settled-index';

const engines: [
  string,
  () => Promise<{ open: () => Promise<SqlEngine>; stop(): Promise<void> }>,
][] = [
  [
    'the embedded engine',
    async () => ({ open: () => migratedMemoryEngine(), stop: async () => {} }),
  ],
  [
    'PostgreSQL',
    async () => {
      const database = await testDatabase();
      return {
        open: async () => postgresEngine(new pg.Pool({ connectionString: database.url, max: 4 })),
        stop: () => database.stop(),
      };
    },
  ],
];

describe.each(engines)('a receipt and the open notes, on %s', (_, engine) => {
  let t: TestApp;
  let stop: () => Promise<void>;
  let finance: TestSession;
  let admin: TestSession;

  beforeAll(async () => {
    const made = await engine();
    stop = () => made.stop();
    t = await startTestApp({
      sim: quarterDemo,
      env: { rateLimits: { uploadsPerMinute: 1_000 } },
      stores: openStores({ open: made.open, logger: silentLogger }),
    });
    [finance, admin] = [await t.signIn('finance'), await t.signIn('admin')];
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await stop?.();
  });

  let used = 0;
  function freshTransactionId(): string {
    const sub = t.sim.data.subAccounts()[0];
    const tx = sub ? t.sim.data.transactions(sub.id)[used++] : undefined;
    if (!tx) throw new Error('the simulator has no transaction left to test with');
    return tx.id;
  }
  const notesPath = (id: string) => `/api/transactions/${encodeURIComponent(id)}/notes`;
  const receiptsPath = (id: string) => `/api/transactions/${encodeURIComponent(id)}/receipts`;
  const notesOf = async (id: string, who = finance) => {
    const res = await t.request.get(notesPath(id)).set(who.headers());
    expect(res.status).toBe(200);
    return res.body as { version: number; memo: string; updatedBy?: string };
  };
  const save = (id: string, body: object, who = finance) =>
    t.request.patch(notesPath(id)).set(who.headers()).send(body);
  let attached = 0;
  const attach = async (id: string, who = finance) => {
    const res = await t.request
      .post(receiptsPath(id))
      .set(who.headers())
      .set('content-type', 'application/octet-stream')
      .set('x-file-name', 'taxi.pdf')
      .send(pdfReceipt(++attached));
    expect(res.status).toBe(201);
    return res.body as { id: string };
  };

  it('keeps a memo saved on the version loaded before the person attached a receipt', async () => {
    const id = freshTransactionId();
    const seen = await notesOf(id);
    await attach(id);
    const saved = await save(id, { version: seen.version, memo: 'Taxi to the airport' });
    expect(saved.status).toBe(200);
    expect(saved.body).toMatchObject({ memo: 'Taxi to the airport', version: seen.version + 1 });
    expect((await t.request.get(receiptsPath(id)).set(finance.headers())).body.items).toHaveLength(
      1,
    );
  });

  it('keeps a change saved on the version loaded before the person removed a receipt, and after another person attached one', async () => {
    const id = freshTransactionId();
    const first = await save(id, { version: 0, memo: 'Hotel' });
    expect(first.status).toBe(200);
    const receipt = await attach(id);
    const seen = await notesOf(id);
    expect(seen.version).toBe(first.body.version);
    const removed = await t.request
      .delete(`${receiptsPath(id)}/${receipt.id}`)
      .set(finance.headers());
    expect(removed.status).toBe(204);
    // Another person's receipt adds a file beside the notes; it edits none of their fields.
    await attach(id, admin);
    const saved = await save(id, { version: seen.version, memo: 'Hotel, two nights' });
    expect(saved.status).toBe(200);
    expect(saved.body).toMatchObject({ memo: 'Hotel, two nights', version: seen.version + 1 });
  });

  it('still refuses, naming that person, a memo saved after someone else changed the notes', async () => {
    const id = freshTransactionId();
    const seen = await notesOf(id);
    await attach(id);
    const theirs = await save(id, { version: seen.version, memo: 'Set by the admin' }, admin);
    expect(theirs.status).toBe(200);
    await attach(id);
    const stale = await save(id, { version: seen.version, memo: 'Typed meanwhile' });
    expect(stale.status).toBe(409);
    expect(stale.body).toMatchObject({
      code: 'notes_changed',
      current: { memo: 'Set by the admin', version: theirs.body.version },
    });
    expect(stale.body.current.updatedBy).toBe(t.credentials.admin.email);
    expect((await notesOf(id)).memo).toBe('Set by the admin');
  });

  it('lists the receipts of a transaction that has no notes yet, unreviewed', async () => {
    const id = freshTransactionId();
    await attach(id);
    await attach(id);
    // Among the transactions with a receipt (a few, from this file's tests).
    const list = await settledIndexList(t, finance, '?receipt=attached&limit=200');
    const row = list.items.find((item) => item.id === id);
    expect(row?.notes).toEqual({
      memo: '',
      categoryId: null,
      tags: [],
      reviewed: false,
      receipts: 2,
    });
  });
});
