import {
  accountingCategoryListSchema,
  accountingCategorySchema,
} from '@card-console/shared/api/accounting-categories';
import { apiErrorBodySchema } from '@card-console/shared/api/error';
import { notesSchema } from '@card-console/shared/api/notes';
import {
  indexPageSchema,
  indexTotalsAnswerSchema,
  SPEND_STATUSES,
} from '@card-console/shared/api/transaction-index';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCsv } from '../../test/csv';
import { quarterDemo, startTestApp, type TestApp, type TestSession } from '../../test/harness';
import { settledIndexList } from '../../test/settled-index';
import { testPan } from '../../test/test-pan';

let t: TestApp;
let admin: TestSession;
let finance: TestSession;

beforeAll(async () => {
  t = await startTestApp({ sim: quarterDemo });
  [admin, finance] = [await t.signIn('admin'), await t.signIn('finance')];
});
afterAll(async () => t.close());

/** The n-th transaction of the simulator's first sub account: each test its own. */
let used = 0;
function freshTransactionId(): string {
  const sub = t.sim.data.subAccounts()[0];
  const tx = sub ? t.sim.data.transactions(sub.id)[used++] : undefined;
  if (!tx) throw new Error('the simulator has no transaction left to test with');
  return tx.id;
}
const notesPath = (id: string) => `/api/transactions/${encodeURIComponent(id)}/notes`;
const patch = (session: TestSession, id: string, body: object) =>
  t.request.patch(notesPath(id)).set(session.headers()).send(body);

async function auditFor(requestId: string) {
  return (await t.audit.list({ limit: 1000 })).items.filter((r) => r.requestId === requestId);
}

async function createCategory(code: string, name: string) {
  const res = await t.request
    .post('/api/accounting-categories')
    .set(admin.headers())
    .send({ code, name });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return accountingCategorySchema.parse(res.body);
}

describe('a transaction’s notes over HTTP', () => {
  it('start empty, are saved by finance, read back, and each change is audited before → after', async () => {
    const id = freshTransactionId();
    const empty = await t.request.get(notesPath(id)).set(finance.headers());
    expect(empty.status).toBe(200);
    expect(notesSchema.parse(empty.body)).toMatchObject({ version: 0, memo: '', tags: [] });

    const software = await createCategory('6100', 'Software');
    const saved = await patch(finance, id, {
      version: 0,
      memo: '  Design tool seats for Q4  ',
      tags: ['Q4', 'design', 'q4'],
      categoryId: software.id,
    });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    expect(notesSchema.parse(saved.body)).toMatchObject({
      memo: 'Design tool seats for Q4',
      tags: ['Q4', 'design'],
      categoryId: software.id,
      version: 1,
      updatedBy: t.credentials.finance.email,
      review: { state: 'unreviewed' },
    });
    const again = await t.request.get(notesPath(id)).set(admin.headers());
    expect(again.body).toEqual(saved.body);

    const [record] = await auditFor(saved.headers['x-request-id'] ?? '');
    expect(record).toMatchObject({
      action: 'transaction.annotate',
      outcome: 'success',
      actor: t.credentials.finance.email,
      target: id,
      before: { memo: '', tags: [], reviewed: false },
      after: {
        memo: 'Design tool seats for Q4',
        category: '6100 Software',
        tags: ['Q4', 'design'],
        reviewed: false,
      },
    });

    // Saved again as it is (the memo with its spaces, a tag twice): nothing changes, so nothing
    // is written and nothing recorded; the answer is the notes as they are.
    const same = await patch(finance, id, {
      version: 1,
      memo: ' Design tool seats for Q4 ',
      tags: ['Q4', 'design', 'Design'],
      categoryId: software.id,
      reviewed: false,
    });
    expect(same.status, JSON.stringify(same.body)).toBe(200);
    expect(same.body).toEqual(saved.body);
    expect(await auditFor(same.headers['x-request-id'] ?? '')).toEqual([]);
  });

  it('refuses a change made on an older version with 409 and the current notes, and audits the attempt', async () => {
    const id = freshTransactionId();
    expect((await patch(admin, id, { version: 0, memo: 'by the admin' })).status).toBe(200);
    const stale = await patch(finance, id, { version: 0, memo: 'typed meanwhile' });
    expect(stale.status).toBe(409);
    const problem = apiErrorBodySchema.parse(stale.body);
    expect(problem).toMatchObject({
      code: 'notes_changed',
      current: { memo: 'by the admin', version: 1 },
    });
    expect((await t.request.get(notesPath(id)).set(finance.headers())).body).toMatchObject({
      memo: 'by the admin',
      version: 1,
    });
    const [record] = await auditFor(stale.headers['x-request-id'] ?? '');
    expect(record).toMatchObject({
      action: 'transaction.annotate',
      outcome: 'failed',
      detail: 'notes_changed',
      before: { memo: 'by the admin' },
      after: { memo: 'typed meanwhile' },
    });
  });

  it('locks a reviewed transaction until it is reopened', async () => {
    const id = freshTransactionId();
    await patch(finance, id, { version: 0, memo: 'Team lunch' });
    const reviewed = await patch(admin, id, { version: 1, reviewed: true });
    expect(reviewed.body.review).toMatchObject({
      state: 'reviewed',
      by: t.credentials.admin.email,
    });
    const locked = await patch(finance, id, { version: 2, memo: 'Team lunch, 6 people' });
    expect(locked.status).toBe(409);
    expect(apiErrorBodySchema.parse(locked.body)).toMatchObject({
      code: 'transaction_reviewed',
      current: { memo: 'Team lunch', version: 2 },
    });
    const reopened = await patch(finance, id, {
      version: 2,
      memo: 'Team lunch, 6 people',
      reviewed: false,
    });
    expect(reopened.status).toBe(200);
    expect(reopened.body).toMatchObject({
      memo: 'Team lunch, 6 people',
      review: { state: 'unreviewed' },
      version: 3,
    });
  });

  it('of ten changes sent at once on one version, saves exactly one; the others get 409 with it', async () => {
    const id = freshTransactionId();
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        patch(i % 2 ? admin : finance, id, { version: 0, memo: `writer ${i}` }),
      ),
    );
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([200, ...Array(9).fill(409)]);
    const winner = answers.find((a) => a.status === 200)?.body;
    for (const a of answers.filter((x) => x.status === 409)) {
      expect(a.body).toMatchObject({ code: 'notes_changed', current: winner });
    }
  });

  it('refuses a card number in a memo or a tag, saving and auditing nothing that holds it', async () => {
    const id = freshTransactionId();
    const digits = testPan(7);
    const pan = digits.replace(/(\d{4})(?=\d)/g, '$1 ');
    for (const body of [
      { version: 0, memo: `paid with ${pan}` },
      { version: 0, tags: [digits] },
    ]) {
      const res = await patch(finance, id, body);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'invalid_body' });
      expect(res.body.detail).toMatch(/card number/);
    }
    expect((await t.request.get(notesPath(id)).set(finance.headers())).body.version).toBe(0);
    const trail = JSON.stringify((await t.audit.list({ limit: 1000 })).items);
    expect(trail).not.toContain(digits);
    expect(trail).not.toContain(pan);
  });

  it('answers bad input with a clear 400 and saves nothing', async () => {
    const id = freshTransactionId();
    const cases: object[] = [
      {},
      { memo: 'no version' },
      { version: -1, memo: 'x' },
      { version: 0 },
      { version: 0, memo: 'x'.repeat(2001) },
      { version: 0, memo: 'bell \u0007' },
      { version: 0, memo: 'reversed \u202Etext' },
      { version: 0, tags: Array.from({ length: 21 }, (_, i) => `t${i}`) },
      { version: 0, tags: [''] },
      { version: 0, tags: ['x'.repeat(41)] },
      { version: 0, reviewed: 'yes' },
      { version: 0, memo: 'x', owner: 'me' },
      { version: 0, categoryId: 'no-such-category' },
    ];
    for (const body of cases) {
      const res = await patch(finance, id, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(apiErrorBodySchema.parse(res.body).code).toMatch(/^invalid_/);
    }
    expect((await t.request.get(notesPath(id)).set(finance.headers())).body.version).toBe(0);
  });

  it('is a 404 for a transaction the card service does not have, and saves nothing', async () => {
    const res = await patch(finance, 'tx-that-does-not-exist', { version: 0, memo: 'x' });
    expect(res.status).toBe(404);
    const notes = await (await t.stores.notes()).get('tx-that-does-not-exist');
    expect(notes.version).toBe(0);
  });
});

describe('the chart of accounts over HTTP', () => {
  it('is read by everyone and changed by admins only; codes are unique whatever their case', async () => {
    const created = await createCategory('7100-A', 'Meals');
    const list = await t.request.get('/api/accounting-categories').set(finance.headers());
    expect(accountingCategoryListSchema.parse(list.body).items).toContainEqual(created);

    const byFinance = await t.request
      .post('/api/accounting-categories')
      .set(finance.headers())
      .send({ code: '7200', name: 'Travel' });
    expect(byFinance.status).toBe(403);

    const duplicate = await t.request
      .post('/api/accounting-categories')
      .set(admin.headers())
      .send({ code: '7100-a', name: 'Also meals' });
    expect(duplicate.status).toBe(409);
    expect(duplicate.body.code).toBe('category_code_taken');

    for (const body of [
      {},
      { code: '', name: 'x' },
      { code: '61 00!', name: 'x' },
      { code: '1', name: '' },
    ]) {
      const res = await t.request
        .post('/api/accounting-categories')
        .set(admin.headers())
        .send(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
    }

    const renamed = await t.request
      .patch(`/api/accounting-categories/${created.id}`)
      .set(admin.headers())
      .send({ name: 'Meals & entertainment' });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toEqual({ ...created, name: 'Meals & entertainment' });
    const [record] = await auditFor(renamed.headers['x-request-id'] ?? '');
    expect(record).toMatchObject({
      action: 'category.update',
      before: { code: '7100-A', name: 'Meals', archived: false },
      after: { code: '7100-A', name: 'Meals & entertainment', archived: false },
    });

    const missing = await t.request
      .patch('/api/accounting-categories/no-such-category')
      .set(admin.headers())
      .send({ name: 'x' });
    expect(missing.status).toBe(404);
  });

  it('keeps an archived category on the transactions that have it and gives it to no new one', async () => {
    const old = await createCategory('9900', 'Legacy');
    const kept = freshTransactionId();
    expect((await patch(finance, kept, { version: 0, categoryId: old.id })).status).toBe(200);
    const archived = await t.request
      .patch(`/api/accounting-categories/${old.id}`)
      .set(admin.headers())
      .send({ archived: true });
    expect(archived.body.archived).toBe(true);

    const refused = await patch(finance, freshTransactionId(), { version: 0, categoryId: old.id });
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('category_archived');
    const memo = await patch(finance, kept, { version: 1, memo: 'still booked to Legacy' });
    expect(memo.status).toBe(200);
    expect(memo.body.categoryId).toBe(old.id);
  });
});

describe('notes in the transactions list and its export', () => {
  it('shows each row’s notes, filters by them, and exports them as columns', async () => {
    const ask = (query: string) =>
      t.request.get(`/api/index/transactions${query}`).set(finance.headers());
    const body = await settledIndexList(t, finance, '');
    // Rows no other test of this file gave notes to; the first posted (settled, refund or
    // dispute: docs/money.md), so the accounting files hold it.
    const [first] = body.items.filter(
      (x) => x.notes === undefined && ['settled', 'refund', 'dispute'].includes(x.status),
    );
    const second = body.items.find((x) => x.notes === undefined && x.id !== first?.id);
    if (!first || !second) throw new Error('the index holds too few rows');
    const audit = await createCategory('6300', 'Audit fees');
    await patch(finance, first.id, {
      version: (await t.stores.notes().then((s) => s.get(first.id))).version,
      memo: 'Quarterly audit',
      categoryId: audit.id,
      tags: ['Close-Nov'],
      reviewed: true,
    });
    await patch(finance, second.id, {
      version: (await t.stores.notes().then((s) => s.get(second.id))).version,
      tags: ['close-nov'],
    });

    const page = indexPageSchema.parse((await ask('')).body);
    expect(page.items.find((x) => x.id === first.id)?.notes).toEqual({
      memo: 'Quarterly audit',
      categoryId: audit.id,
      tags: ['Close-Nov'],
      reviewed: true,
      receipts: 0,
    });
    const ids = async (query: string) =>
      indexPageSchema.parse((await ask(query)).body).items.map((x) => x.id);
    expect(await ids(`?account=${audit.id}`)).toEqual([first.id]);
    const tagged = [first.id, second.id];
    expect(await ids('?tag=CLOSE-NOV')).toEqual(
      body.items.map((x) => x.id).filter((id) => tagged.includes(id)),
    );
    expect(await ids('?tag=close-nov&review=unreviewed')).toEqual([second.id]);
    expect(await ids('?review=reviewed')).toContain(first.id);
    expect(await ids('?review=unreviewed&limit=200')).not.toContain(first.id);
    expect(await ids(`?account=none&limit=200`)).not.toContain(first.id);
    for (const bad of ['?review=maybe', '?tag=', `?tag=${'x'.repeat(41)}`, '?account=']) {
      expect((await ask(bad)).status, bad).toBe(400);
    }

    const csv = await t.request
      .get(`/api/index/transactions/export.csv?account=${audit.id}`)
      .set(finance.headers());
    expect(csv.status).toBe(200);
    const [header, row] = parseCsv(csv.text).filter((r) => r.length > 1);
    const cell = (name: string) => row?.[header?.indexOf(name) ?? -1];
    // The merchant by name as the detail names it (the network's text is in `merchant`).
    const merchantName = first.merchant
      ? (
          (
            await t.request
              .get(
                `/api/index/merchant?descriptor=${encodeURIComponent(first.merchant.description)}`,
              )
              .set(finance.headers())
          ).body as { name: string }
        ).name
      : '';
    expect(header?.slice(-9)).toEqual([
      'account code',
      'accounting category',
      'memo',
      'tags',
      'receipts',
      'review',
      'reviewed by',
      'reviewed at',
      'merchant name',
    ]);
    expect(cell('merchant')).toBe(first.merchant?.description ?? '');
    expect(cell('merchant name')).toBe(merchantName);
    expect(cell('id')).toBe(first.id);
    expect([cell('account code'), cell('accounting category'), cell('memo'), cell('tags')]).toEqual(
      ['6300', 'Audit fees', 'Quarterly audit', 'Close-Nov'],
    );
    expect([cell('review'), cell('reviewed by')]).toEqual([
      'reviewed',
      t.credentials.finance.email,
    ]);
    expect(cell('reviewed at')).toMatch(/^\d{4}-\d{2}-\d{2}T/);

    // The accountant's formats: exactly the columns QuickBooks Online and Xero document.
    const local = (cell('date') ?? '').slice(0, 10).split('-');
    const [year, month, day] = local;
    const amount = (first.amountCents / 100).toFixed(2);
    const payee = first.merchant?.description ?? first.description;
    const quickbooks = await t.request
      .get(`/api/index/transactions/export.csv?account=${audit.id}&format=quickbooks`)
      .set(finance.headers());
    expect(quickbooks.status).toBe(200);
    expect(quickbooks.headers['content-disposition']).toMatch(/quickbooks/);
    expect(parseCsv(quickbooks.text).filter((r) => r.length > 1)).toEqual([
      ['Date', 'Description', 'Amount'],
      [`${month}/${day}/${year}`, `${payee} - Quarterly audit`, amount],
    ]);
    const xero = await t.request
      .get(`/api/index/transactions/export.csv?account=${audit.id}&format=xero`)
      .set(finance.headers());
    const card = first.card
      ? ` · card ${first.card.name}${first.card.last4 ? ` •••• ${first.card.last4}` : ''}`
      : '';
    expect(parseCsv(xero.text).filter((r) => r.length > 1)).toEqual([
      [
        '*Date',
        '*Amount',
        'Payee',
        'Description',
        'Reference',
        'Cheque Number',
        'Account code',
        'Tax type',
      ],
      [
        `${day}/${month}/${year}`,
        amount,
        // Xero's payee: the merchant by name, however the network wrote it.
        merchantName || payee,
        `Quarterly audit${card}`,
        first.id,
        '',
        '6300',
        '',
      ],
    ]);
    expect(
      (await t.request.get('/api/index/transactions/export.csv?format=sage').set(finance.headers()))
        .status,
    ).toBe(400);
  }, 60_000);
});

describe('importing a chart of accounts', () => {
  const importCsv = (csv: string, session = admin, type = 'text/csv') =>
    t.request
      .post('/api/accounting-categories/import')
      .set(session.headers())
      .set('content-type', type)
      .send(csv);
  const codes = async () =>
    accountingCategoryListSchema
      .parse((await t.request.get('/api/accounting-categories').set(admin.headers())).body)
      .items.map((c) => `${c.code} ${c.name}`);

  it("takes Xero's and QuickBooks' exports: new codes added, names updated, the rest kept", async () => {
    const xero =
      '\uFEFF"*Code","*Name","*Type","*Tax Code"\n"IMP-400","Advertising","Expense","Tax on Purchases"\n"IMP-404","Bank Fees","Expense","No VAT"\n';
    const first = await importCsv(xero);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body).toMatchObject({ created: 2, renamed: 0, unchanged: 0 });
    const quickbooks =
      'Account #,Account,Type,Detail type\nimp-400,Advertising & marketing,Expenses,Advertising\nIMP-404,Bank Fees,Expenses,Bank charges\nIMP-500,"Meals, travel",Expenses,Travel\n';
    const second = await importCsv(quickbooks);
    expect(second.body).toMatchObject({ created: 1, renamed: 1, unchanged: 1 });
    const now = await codes();
    expect(now).toEqual(
      expect.arrayContaining([
        'IMP-400 Advertising & marketing',
        'IMP-404 Bank Fees',
        'IMP-500 Meals, travel',
      ]),
    );
    const records = (await auditFor(second.headers['x-request-id'] ?? '')).map((r) => [
      r.action,
      r.before?.name,
      r.after?.name,
    ]);
    expect(records).toHaveLength(2);
    expect(records).toEqual(
      expect.arrayContaining([
        ['category.update', 'Advertising', 'Advertising & marketing'],
        ['category.create', undefined, 'Meals, travel'],
      ]),
    );
  });

  it('imports nothing from a file with any bad line, and says which lines', async () => {
    const before = await codes();
    const bad = 'code,name\nBAD-1,Fine\nBAD 2!,Broken code\nBAD-3,\nBAD-1,Again\n';
    const res = await importCsv(bad);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('invalid_body');
    expect(res.body.detail).toMatch(
      /line 3: code .*line 4: name .*line 5: code BAD-1 is also on line 2/,
    );
    expect(await codes()).toEqual(before);
    for (const [csv, type, status] of [
      ['name,type\nA,B\n', 'text/csv', 400],
      ['code,name\n', 'text/csv', 400],
      ['code,name\n"unclosed,x\n', 'text/csv', 400],
      ['code,name\nA,B\n', 'application/json', 400],
      // Over the import's 512 KB: 413, as any body over its limit.
      [`code,name\n${'X,Y\n'.repeat(200_000)}`, 'text/csv', 413],
      [`code,name\nPAN-1,Card ${testPan(8)}\n`, 'text/csv', 400],
    ] as const) {
      const answer = await importCsv(csv, admin, type);
      expect(answer.status, csv.slice(0, 40)).toBe(status);
      expect(apiErrorBodySchema.parse(answer.body).code).toMatch(/^(invalid_body|body_too_large)$/);
    }
    expect(await codes()).toEqual(before);
    expect((await importCsv('code,name\nF-1,Finance may not\n', finance)).status).toBe(403);
  });
});

describe('changing a selection of transactions at once', () => {
  it('books, tags and reviews every chosen row as it is now, skipping reviewed ones and rows the index lacks', async () => {
    const body = await settledIndexList(t, finance, '?limit=200');
    const rows = body.items.filter((x) => x.notes === undefined).slice(0, 4);
    const [a, b, c, d] = rows;
    if (!a || !b || !c || !d) throw new Error('the index holds too few rows');
    const travel = await createCategory('BULK-1', 'Travel');
    // b is reviewed already; c has tags of its own.
    await patch(finance, b.id, { version: 0, reviewed: true });
    await patch(finance, c.id, { version: 0, tags: ['Team'] });
    const items = [a, b, c, d].map((x) => ({ subAccountId: x.subAccountId, id: x.id }));
    const res = await t.request
      .post('/api/transactions/notes')
      .set(finance.headers())
      .send({
        items: [...items, { subAccountId: a.subAccountId, id: 'not-in-the-index' }],
        categoryId: travel.id,
        addTags: ['close-nov', 'team'],
      });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.skipped).toEqual([
      { transactionId: b.id, reason: 'reviewed' },
      { transactionId: 'not-in-the-index', reason: 'not_found' },
    ]);
    const after = new Map(
      (res.body.changed as { transactionId: string; tags: string[]; categoryId: string }[]).map(
        (n) => [n.transactionId, n],
      ),
    );
    expect(after.get(a.id)).toMatchObject({ categoryId: travel.id, tags: ['close-nov', 'team'] });
    expect(after.get(c.id)).toMatchObject({ categoryId: travel.id, tags: ['Team', 'close-nov'] });
    expect((await auditFor(res.headers['x-request-id'] ?? '')).map((r) => r.target).sort()).toEqual(
      [a.id, c.id, d.id].sort(),
    );

    const reviewed = await t.request
      .post('/api/transactions/notes')
      .set(finance.headers())
      .send({ items, reviewed: true });
    // b was reviewed already: reviewing reaches the others, and says so of it.
    expect(reviewed.body.skipped).toEqual([{ transactionId: b.id, reason: 'reviewed' }]);
    expect(reviewed.body.changed).toHaveLength(3);
    expect(
      (reviewed.body.changed as { review: { state: string } }[]).every(
        (n) => n.review.state === 'reviewed',
      ),
    ).toBe(true);

    // A whole selection of 500 rows fits (the JSON limit is the endpoint's own).
    const many = Array.from({ length: 500 }, (_, i) => ({
      subAccountId: a.subAccountId,
      id: `not-in-the-index-${'x'.repeat(40)}-${i}`,
    }));
    const full = await t.request
      .post('/api/transactions/notes')
      .set(finance.headers())
      .send({ items: many, addTags: ['selection'] });
    expect(full.status, JSON.stringify(full.body).slice(0, 200)).toBe(200);
    expect(full.body.skipped).toHaveLength(500);
    for (const bad of [
      { items: [], reviewed: true },
      { items },
      {
        items: Array.from({ length: 501 }, (_, i) => ({ subAccountId: 's', id: `x${i}` })),
        reviewed: true,
      },
      { items, addTags: [testPan(9)] },
      { items, categoryId: 'no-such-category' },
    ]) {
      const answer = await t.request
        .post('/api/transactions/notes')
        .set(finance.headers())
        .send(bad);
      expect(answer.status, JSON.stringify(bad).slice(0, 80)).toBe(400);
    }
  }, 60_000);
});

describe('merchant rules', () => {
  it('are kept by admins, one per merchant whatever its case, each change audited', async () => {
    const software = await createCategory('RULE-1', 'Software');
    const create = (merchant: string, session = admin, categoryId = software.id) =>
      t.request.post('/api/merchant-rules').set(session.headers()).send({ merchant, categoryId });
    const made = await create('Figma Inc');
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ merchant: 'Figma Inc', categoryId: software.id });
    expect((await create('FIGMA INC')).body.code).toBe('merchant_rule_exists');
    expect((await create('Notion', finance)).status).toBe(403);
    expect((await create('Notion', admin, 'no-such-category')).status).toBe(400);
    expect((await create(`Card ${testPan(10)}`)).status).toBe(400);
    const list = await t.request.get('/api/merchant-rules').set(finance.headers());
    expect(list.body.items).toContainEqual(made.body);
    const removed = await t.request
      .delete(`/api/merchant-rules/${made.body.id}`)
      .set(admin.headers());
    expect(removed.status).toBe(204);
    const [record] = await auditFor(removed.headers['x-request-id'] ?? '');
    expect(record).toMatchObject({
      action: 'merchantRule.delete',
      before: { merchant: 'Figma Inc', category: 'RULE-1 Software' },
    });
    expect(
      (await t.request.delete(`/api/merchant-rules/${made.body.id}`).set(admin.headers())).status,
    ).toBe(404);
  });
});

describe('what the month close still needs', () => {
  it('counts the list’s to review, uncategorised (money that moved) and declined filters over a period', async () => {
    const from = t.clock.now() - 20 * 86_400_000;
    const to = t.clock.now();
    const totals = async (query: string) =>
      indexTotalsAnswerSchema.parse(
        (
          await t.request
            .get(`/api/index/transactions/totals?from=${from}&to=${to}&${query}`)
            .set(finance.headers())
        ).body,
      ).summary;
    let res = await t.request
      .get(`/api/index/attention?from=${from}&to=${to}`)
      .set(finance.headers());
    for (let tries = 0; res.body.freshness?.syncing && tries < 300; tries++) {
      await new Promise((r) => setTimeout(r, 100));
      res = await t.request
        .get(`/api/index/attention?from=${from}&to=${to}`)
        .set(finance.headers());
    }
    expect(res.status).toBe(200);
    // Of the money that moved or will (the spend statuses): what moved nothing is never to review.
    const spend = SPEND_STATUSES.map((x) => `status=${x}`).join('&');
    expect(res.body.missingReceipt).toMatchObject({
      count: (await totals(`receipt=missing&minCents=7500&${spend}`)).count,
      fromCents: 7500,
    });
    expect(res.body.missingReceipt.count).toBeGreaterThan(0);
    expect(res.body.unreviewed.count).toBe((await totals(`review=unreviewed&${spend}`)).count);
    expect(res.body.uncategorized.count).toBe((await totals(`account=none&${spend}`)).count);
    expect(res.body.declined.count).toBe(
      (await totals('status=declined&status=canceled&status=failed')).count,
    );
    expect(res.body.unreviewed.count).toBeGreaterThan(0);
    expect(res.body.declined.count).toBeGreaterThan(0);
    // Reviewing one row of the period takes it off the count.
    const [row] = indexPageSchema.parse(
      (
        await t.request
          .get(`/api/index/transactions?from=${from}&to=${to}&review=unreviewed&${spend}`)
          .set(finance.headers())
      ).body,
    ).items;
    if (!row) throw new Error('nothing unreviewed');
    const notes = await t.stores.notes().then((s) => s.get(row.id));
    await patch(finance, row.id, { version: notes.version, reviewed: true });
    const after = await t.request
      .get(`/api/index/attention?from=${from}&to=${to}`)
      .set(finance.headers());
    expect(after.body.unreviewed.count).toBe(res.body.unreviewed.count - 1);
    expect(
      (await t.request.get(`/api/index/attention?from=${to}&to=${from}`).set(finance.headers()))
        .status,
    ).toBe(400);
  }, 60_000);
});
