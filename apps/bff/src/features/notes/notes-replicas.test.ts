// Transaction notes live in the index's SQL store: two replicas on one PostgreSQL see each
// other's notes, and of changes sent at once to both on one version exactly one is saved; on
// the embedded engine, notes outlive a restart of the BFF.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { embeddedEngine } from '../../platform/sql/sql-engine';
import { openStores } from '../../stores';
import { silentLogger } from '../../test/audit-cluster';
import { testDatabase } from '../../test/engines/postgres';
import { startTestApp, type TestApp, type TestSession } from '../../test/harness';
import { pdfReceipt } from '../../test/receipt-files';
import { replicaStores } from '../../test/replica-stores';

const notesPath = (id: string) => `/api/transactions/${encodeURIComponent(id)}/notes`;

function transactionOf(app: TestApp, n: number): string {
  const sub = app.sim.data.subAccounts()[0];
  const id = sub ? app.sim.data.transactions(sub.id)[n]?.id : undefined;
  if (!id) throw new Error('the simulator has no transaction to test with');
  return id;
}

/** The per-person upload limit both replicas run with here. */
const UPLOADS_PER_MINUTE = 4;

describe('transaction notes on two replicas sharing one PostgreSQL', () => {
  let database: Awaited<ReturnType<typeof testDatabase>>;
  let a: TestApp;
  let b: TestApp;
  let finance: TestSession;
  let admin: TestSession;

  beforeAll(async () => {
    database = await testDatabase();
    const shared = { databaseUrl: database.url };
    const env = {
      sessionSecret: randomBytes(32).toString('hex'),
      rateLimits: { uploadsPerMinute: UPLOADS_PER_MINUTE },
    };
    const index = () => replicaStores(database.url);
    a = await startTestApp({ shared, env, stores: index() });
    b = await startTestApp({ shared, env, upstreamOf: a, stores: index() });
    [finance, admin] = [await a.signIn('finance'), await a.signIn('admin')];
  }, 60_000);
  afterAll(async () => {
    await b?.close();
    await a?.close();
    await database?.stop();
  });

  it('reads on one replica what was saved on the other, the chart of accounts included', async () => {
    const category = await a.request
      .post('/api/accounting-categories')
      .set(admin.headers())
      .send({ code: '6100', name: 'Software' });
    expect(category.status).toBe(201);
    const id = transactionOf(a, 0);
    const saved = await a.request
      .patch(notesPath(id))
      .set(finance.headers())
      .send({ version: 0, memo: 'Seats', categoryId: category.body.id, tags: ['q4'] });
    expect(saved.status).toBe(200);
    const onB = await b.request.get(notesPath(id)).set(finance.headers());
    expect(onB.body).toEqual(saved.body);
    const list = await b.request.get('/api/accounting-categories').set(finance.headers());
    expect(list.body.items).toContainEqual(category.body);
  });

  it('of changes sent at once to both replicas on one version, saves exactly one', async () => {
    const id = transactionOf(a, 1);
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        (i % 2 ? a : b).request
          .patch(notesPath(id))
          .set(finance.headers())
          .send({ version: 0, memo: `replica writer ${i}` }),
      ),
    );
    expect(answers.map((r) => r.status).sort()).toEqual([200, ...Array(7).fill(409)]);
    const winner = answers.find((r) => r.status === 200)?.body;
    for (const app of [a, b]) {
      expect((await app.request.get(notesPath(id)).set(finance.headers())).body).toEqual(winner);
    }
  });
  it("counts a person's uploads against one limit a minute across both replicas", async () => {
    const id = transactionOf(a, 2);
    // Six at once, alternating replicas: the shared limit (PostgreSQL) lets four through, wherever
    // they landed, and refuses the rest with when to try again.
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        (i % 2 ? a : b).request
          .post(`/api/transactions/${encodeURIComponent(id)}/receipts`)
          .set(finance.headers())
          .set('content-type', 'application/pdf')
          .set('x-file-name', `invoice-${i}.pdf`)
          .send(pdfReceipt()),
      ),
    );
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses).toEqual([201, 201, 201, 201, 429, 429]);
    for (const refused of answers.filter((r) => r.status === 429)) {
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    }
    const listed = await b.request
      .get(`/api/transactions/${encodeURIComponent(id)}/receipts`)
      .set(finance.headers());
    expect(listed.body.items).toHaveLength(UPLOADS_PER_MINUTE);
  });
});

describe('transaction notes on the embedded engine', () => {
  it('outlive a restart of the BFF', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cc-notes-'));
    const index = () => openStores({ open: () => embeddedEngine(dir), logger: silentLogger });
    try {
      const first = await startTestApp({ stores: index() });
      const id = transactionOf(first, 0);
      const finance = await first.signIn('finance');
      const saved = await first.request
        .patch(notesPath(id))
        .set(finance.headers())
        .send({ version: 0, memo: 'Kept across restarts', reviewed: true });
      expect(saved.status).toBe(200);
      await first.close();

      const again = await startTestApp({ stores: index() });
      try {
        const read = await again.request
          .get(notesPath(id))
          .set((await again.signIn('finance')).headers());
        expect(read.body).toEqual(saved.body);
      } finally {
        await again.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
    }
  }, 120_000);
});
