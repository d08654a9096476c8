// Transaction notes live in the index's SQL store: two replicas on one PostgreSQL see each
// other's notes, and of changes sent at once to both on one version exactly one is saved; on
// the embedded engine, notes outlive a restart of the BFF.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { notesMatchingResultSchema } from '@card-console/shared/api/notes-matching';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { embeddedEngine } from '../../platform/sql/sql-engine';
import { openStores } from '../../stores';
import { silentLogger } from '../../test/audit-cluster';
import { testDatabase } from '../../test/engines/postgres';
import { startTestApp, type TestApp, type TestSession } from '../../test/harness';
import { pdfReceipt } from '../../test/receipt-files';
import { replicaStores } from '../../test/replica-stores';
import { settledIndexList } from '../../test/settled-index';

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
  it('two changes of every matching row at once, on the two replicas: each row changed by one, the other leaves it', async () => {
    // Both ask for every row with no accounting category to be given theirs; both read the filter
    // before either wrote. Each row must end with one category, changed by one change, and the
    // other must leave it (it no longer matches), never book it again over the first.
    const sub = a.sim.data.subAccounts()[0];
    if (!sub) throw new Error('no sub account');
    const [one, two] = await Promise.all(
      ['6810', '6820'].map(async (code) => {
        const res = await a.request
          .post('/api/accounting-categories')
          .set(admin.headers())
          .send({ code, name: `Race ${code}` });
        expect(res.status, JSON.stringify(res.body)).toBe(201);
        return res.body.id as string;
      }),
    );
    // The rows: 40 of the sub account's, tagged to be asked for apart from the rest (once the
    // index holds them: a change of many changes only rows it holds).
    await settledIndexList(a, admin, `?subAccountId=${encodeURIComponent(sub.id)}`);
    const tagged = a.sim.data
      .transactions(sub.id)
      .slice(100, 140)
      .map((t) => ({ subAccountId: sub.id, id: t.id }));
    const tagging = await a.request
      .post('/api/transactions/notes')
      .set(finance.headers())
      .send({ items: tagged, addTags: ['race-booking'] });
    expect(tagging.status, JSON.stringify(tagging.body)).toBe(200);
    expect(tagging.body.changed).toHaveLength(40);
    const filter = { subAccountId: sub.id, account: ['none'], tag: 'race-booking' };
    const query = `?subAccountId=${encodeURIComponent(sub.id)}&account=none&tag=race-booking&limit=200`;
    const before = await settledIndexList(a, admin, query);
    expect(before.items.length).toBe(40);
    const other = await b.signIn('finance');
    const answers = await Promise.all([
      a.request
        .post('/api/transactions/notes/matching')
        .set(finance.headers())
        .send({ filter, categoryId: one }),
      b.request
        .post('/api/transactions/notes/matching')
        .set(other.headers())
        .send({ filter, categoryId: two }),
    ]);
    for (const res of answers) expect(res.status, JSON.stringify(res.body)).toBe(200);
    const results = answers.map((res) => notesMatchingResultSchema.parse(res.body));
    const matched = before.items.length;
    // Every row changed once between them; what one did not change, it left as no longer matching.
    expect(results.reduce((sum, r) => sum + r.changed, 0)).toBe(matched);
    for (const r of results) {
      const left = r.skipped.find((x) => x.reason === 'no_longer_matching')?.count ?? 0;
      expect(r.changed + left).toBe(r.matching);
    }
    // No row's audit record books it over a category another change gave it.
    // Each replica keeps its own trail here: read both (the one whose change lost every row to
    // the other has no row's record, which read alone made this test fail now and then).
    const ids = new Set(answers.map((res) => res.headers['x-request-id']));
    const trails = await Promise.all([a, b].map((app) => app.audit.list({ limit: 5000 })));
    const perRow = trails
      .flatMap((trail) => trail.items)
      .filter((r) => r.action === 'transaction.annotate' && ids.has(r.requestId));
    expect(perRow).toHaveLength(matched);
    expect(new Set(perRow.map((r) => r.target)).size).toBe(matched);
    for (const r of perRow) expect(JSON.stringify(r.before)).not.toMatch(/Race 68[12]0/);
    // Nothing is left without a category.
    const after = await settledIndexList(a, admin, query);
    expect(after.items).toEqual([]);
  }, 90_000);

  it('two changes of many at once over rows with no notes yet: both land, neither refused', async () => {
    // Each appends a line to the same rows, none of which had notes: the second to lock a row
    // found it written by the first since it read, and was refused whole (409) before.
    const sub = a.sim.data.subAccounts()[0];
    const ids = (sub ? a.sim.data.transactions(sub.id) : []).slice(40, 70).map((t) => t.id);
    expect(ids).toHaveLength(30);
    const other = await b.signIn('finance');
    const answers = await Promise.all(
      [
        [a, finance],
        [b, other],
      ].map(([app, who], i) =>
        (app as TestApp).request
          .post('/api/transactions/notes')
          .set((who as TestSession).headers())
          .send({
            items: ids.map((id) => ({ subAccountId: sub?.id, id })),
            memo: { text: `line ${i}`, mode: 'append' },
          }),
      ),
    );
    for (const res of answers) expect(res.status, JSON.stringify(res.body)).toBe(200);
    for (const id of ids) {
      const notes = await a.request.get(notesPath(id)).set(admin.headers());
      expect(notes.body.memo?.split('\n').sort()).toEqual(['line 0', 'line 1']);
    }
  }, 90_000);

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
          .send(pdfReceipt(i)),
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
