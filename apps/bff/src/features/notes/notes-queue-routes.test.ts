// The month close as a flow, over HTTP: the review queue's place of a transaction in its list,
// the merchant's last category, and one change of every transaction a filter gives.
import { accountingCategorySchema } from '@card-console/shared/api/accounting-categories';
import { apiErrorBodySchema } from '@card-console/shared/api/error';
import { notesSchema } from '@card-console/shared/api/notes';
import { notesMatchingResultSchema } from '@card-console/shared/api/notes-matching';
import { type IndexPage, indexQueueSchema } from '@card-console/shared/api/transaction-index';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

const notesPath = (id: string) => `/api/transactions/${encodeURIComponent(id)}/notes`;

async function notesOf(id: string) {
  return notesSchema.parse((await t.request.get(notesPath(id)).set(finance.headers())).body);
}

async function createCategory(code: string, name: string) {
  const res = await t.request
    .post('/api/accounting-categories')
    .set(admin.headers())
    .send({ code, name });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return accountingCategorySchema.parse(res.body);
}

async function queue(query: string) {
  const res = await t.request.get(`/api/index/transactions/queue?${query}`).set(finance.headers());
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return indexQueueSchema.parse(res.body);
}

/** Saves `change` over the notes as they are now (a merchant rule may have written them). */
async function save(id: string, change: object) {
  const { version } = await notesOf(id);
  const res = await t.request
    .patch(notesPath(id))
    .set(finance.headers())
    .send({ version, ...change });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

const matching = (body: object) =>
  t.request.post('/api/transactions/notes/matching').set(finance.headers()).send(body);

/**
 * Every row of the list `query` gives, page by page (the oracle: the list itself), or the pages
 * read until `enough` says so.
 */
async function allRows(
  query: string,
  enough: (rows: IndexPage['items']) => unknown = () => false,
): Promise<IndexPage['items']> {
  const rows: IndexPage['items'] = [];
  let page = await settledIndexList(t, finance, `?${query}&limit=200`);
  rows.push(...page.items);
  while (page.nextCursor && !enough(rows)) {
    const res = await t.request
      .get(
        `/api/index/transactions?${query}&limit=200&cursor=${encodeURIComponent(page.nextCursor)}`,
      )
      .set(finance.headers());
    page = res.body;
    rows.push(...page.items);
  }
  return rows;
}

// Each allowed alone; the line break a change of many puts between a row's memo and the text
// appended joins them, and together they read as what no memo may hold: a card number (the
// digit groups join; the trail refused the record: 503 to the whole change, however often it
// was tried) or a security code beside its name (a review stored "Card cvv\n123").
const PAN = testPan(41);
const joined = [
  {
    reason: 'card_number',
    memo: `Ref ${PAN.slice(0, 4)} ${PAN.slice(4, 8)}`,
    text: `${PAN.slice(8, 12)} ${PAN.slice(12)}`,
    rows: [3, 4],
  },
  { reason: 'security_code', memo: 'Card cvv', text: '123', rows: [5, 6] },
] as const;

describe('the review queue over HTTP', () => {
  it('places a transaction in its filtered list, and after it is reviewed still knows what follows', async () => {
    const sub = t.sim.data.subAccounts()[1];
    if (!sub) throw new Error('the simulator has too few sub accounts');
    const filter = `subAccountId=${encodeURIComponent(sub.id)}&review=unreviewed&sort=amount&direction=desc`;
    const rows = await allRows(filter);
    expect(rows.length).toBeGreaterThan(5);
    const [first, second, third, fourth] = rows;
    if (!first || !second || !third || !fourth) throw new Error('too few rows');

    const at = (id: string) => queue(`${filter}&transactionId=${encodeURIComponent(id)}`);
    expect(await at(third.id)).toMatchObject({
      count: rows.length,
      position: 3,
      previous: { subAccountId: sub.id, id: second.id },
      next: { subAccountId: sub.id, id: fourth.id },
    });
    const firstPlace = await at(first.id);
    expect(firstPlace.position).toBe(1);
    expect(firstPlace.previous).toBeUndefined();
    const last = rows.at(-1);
    if (!last) throw new Error('no rows');
    expect((await at(last.id)).next).toBeUndefined();

    // Reviewed, it leaves the set; its neighbours are still the rows either side.
    await save(third.id, { reviewed: true });
    const after = await at(third.id);
    expect(after).toMatchObject({
      count: rows.length - 1,
      previous: { id: second.id },
      next: { id: fourth.id },
    });
    expect(after.position).toBeUndefined();
    // Save and next's read alone names the same next row.
    const alone = await t.request
      .get(
        `/api/index/transactions/queue/next?${filter}&transactionId=${encodeURIComponent(third.id)}`,
      )
      .set(finance.headers());
    expect(alone.status).toBe(200);
    expect(alone.body).toEqual({ next: { subAccountId: sub.id, id: fourth.id } });
    const atLast = await t.request
      .get(
        `/api/index/transactions/queue/next?${filter}&transactionId=${encodeURIComponent(last.id)}`,
      )
      .set(finance.headers());
    expect(atLast.body).toEqual({});
  }, 60_000);

  it("suggests the category the merchant's latest booked transaction has", async () => {
    // Read until some merchant has two (every unreviewed row of the demo was 10 s of a loaded
    // worker; the first page nearly always holds a pair).
    const byMerchant = (rows: IndexPage['items']) => {
      const of = new Map<string, typeof rows>();
      for (const row of rows) {
        const merchant = row.merchant?.description?.toLowerCase();
        if (merchant) of.set(merchant, [...(of.get(merchant) ?? []), row]);
      }
      return [...of.values()].find((list) => list.length >= 2);
    };
    const pair = byMerchant(await allRows('review=unreviewed', byMerchant));
    if (!pair?.[0] || !pair[1]) throw new Error('no merchant with two transactions');
    const [booked, other] = pair;
    const meals = await createCategory('6420', 'Team meals');
    expect(
      (await queue(`transactionId=${encodeURIComponent(other.id)}`)).suggestedCategoryId,
    ).not.toBe(meals.id);
    await save(booked.id, { categoryId: meals.id });
    expect((await queue(`transactionId=${encodeURIComponent(other.id)}`)).suggestedCategoryId).toBe(
      meals.id,
    );
  }, 60_000);

  it('is a 404 for a transaction the index does not hold, and a 400 for a bad filter', async () => {
    const missing = await t.request
      .get('/api/index/transactions/queue?transactionId=no-such-transaction')
      .set(finance.headers());
    expect(missing.status).toBe(404);
    expect(apiErrorBodySchema.parse(missing.body).code).toBe('not_found');
    for (const bad of [
      '',
      'transactionId=',
      'transactionId=x&review=maybe',
      'transactionId=x&from=2&to=1',
    ]) {
      const res = await t.request
        .get(`/api/index/transactions/queue?${bad}`)
        .set(finance.headers());
      expect(res.status, bad).toBe(400);
      expect(apiErrorBodySchema.parse(res.body).status).toBe(400);
    }
  });
});

describe('one change of every transaction a filter gives', () => {
  it('previews the count, then tags and reviews every matching row, with one record naming the filter and one per row', async () => {
    const sub = t.sim.data.subAccounts()[2];
    if (!sub) throw new Error('the simulator has too few sub accounts');
    const filter = { subAccountId: sub.id, review: 'unreviewed' };
    const query = `subAccountId=${encodeURIComponent(sub.id)}&review=unreviewed`;
    const rows = await allRows(query);
    // More than a page and more than a selection's 500 would be better still; the simulator's
    // sub account has what it has, and the rows are read from the list itself.
    expect(rows.length).toBeGreaterThan(10);

    const preview = await matching({
      filter,
      addTags: ['close-oct'],
      reviewed: true,
      preview: true,
    });
    expect(preview.status, JSON.stringify(preview.body)).toBe(200);
    expect(notesMatchingResultSchema.parse(preview.body)).toEqual({
      preview: true,
      matching: rows.length,
      matchingDigest: expect.stringMatching(/^[A-Za-z0-9_-]{32}$/),
      changed: rows.length,
      skipped: [],
    });
    // A preview changes nothing.
    expect((await notesOf(rows[0]?.id ?? '')).version).toBe(0);

    const done = await matching({ filter, addTags: ['close-oct'], reviewed: true });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body).toEqual({
      preview: false,
      matching: rows.length,
      matchingDigest: preview.body.matchingDigest,
      changed: rows.length,
      skipped: [],
    });
    expect(await allRows(query)).toEqual([]);
    const tagged = await allRows(`subAccountId=${encodeURIComponent(sub.id)}&tag=close-oct`);
    expect(tagged.map((r) => r.id).sort()).toEqual(rows.map((r) => r.id).sort());
    expect(tagged.every((r) => r.notes?.reviewed === true)).toBe(true);

    const records = (await t.audit.list({ limit: 5000 })).items.filter(
      (r) => r.requestId === done.headers['x-request-id'],
    );
    const bulk = records.filter((r) => r.action === 'transaction.bulkNotes');
    expect(bulk).toHaveLength(1);
    expect(bulk[0]).toMatchObject({
      outcome: 'success',
      actor: t.credentials.finance.email,
      after: { tags: ['close-oct'], reviewed: true },
    });
    expect(bulk[0]?.detail).toContain(`subAccountId=${encodeURIComponent(sub.id)}`);
    expect(bulk[0]?.detail).toContain(`${rows.length} matching, ${rows.length} changed`);
    const perRow = records.filter((r) => r.action === 'transaction.annotate');
    expect(perRow.map((r) => r.target).sort()).toEqual(rows.map((r) => r.id).sort());

    // Reopening reaches the reviewed ones; reviewing again skips them and says why.
    const reviewedFilter = { subAccountId: sub.id, tag: 'close-oct' };
    const again = await matching({ filter: reviewedFilter, reviewed: true });
    expect(again.body).toMatchObject({
      changed: 0,
      skipped: [{ reason: 'reviewed', count: rows.length }],
    });
    const tags = await matching({ filter: reviewedFilter, addTags: ['late'] });
    expect(tags.body).toMatchObject({
      changed: 0,
      skipped: [{ reason: 'reviewed', count: rows.length }],
    });
    const reopen = await matching({ filter: reviewedFilter, reviewed: false });
    expect(reopen.body).toMatchObject({ changed: rows.length, skipped: [] });
    const twice = await matching({ filter: reviewedFilter, reviewed: false });
    expect(twice.body).toMatchObject({
      changed: 0,
      skipped: [{ reason: 'not_reviewed', count: rows.length }],
    });
  }, 120_000);

  it('appends a memo on a line of its own or replaces it, and skips a row whose memo would grow too long', async () => {
    const sub = t.sim.data.subAccounts()[3];
    if (!sub) throw new Error('the simulator has too few sub accounts');
    const rows = await allRows(`subAccountId=${encodeURIComponent(sub.id)}&review=unreviewed`);
    const [a, b, c] = rows;
    if (!a || !b || !c) throw new Error('too few rows');
    await save(a.id, { memo: 'Client lunch' });
    await save(b.id, { memo: 'x'.repeat(1995) });
    // Base 36: thirteen decimal digits in a row pass for a card number about one time in ten
    // (the Luhn check), and a tag holding one is refused (a clean-clone run met one).
    const tag = `memo-${Date.now().toString(36)}`;
    for (const row of [a, b, c]) await save(row.id, { tags: [tag] });
    const filter = { subAccountId: sub.id, tag };
    const appended = await matching({ filter, memo: { text: 'Approved by Dana', mode: 'append' } });
    expect(appended.body).toMatchObject({
      matching: 3,
      changed: 2,
      skipped: [{ reason: 'memo_too_long', count: 1 }],
    });
    expect((await notesOf(a.id)).memo).toBe('Client lunch\nApproved by Dana');
    expect((await notesOf(b.id)).memo).toBe('x'.repeat(1995));
    expect((await notesOf(c.id)).memo).toBe('Approved by Dana');
    const replaced = await matching({ filter, memo: { text: 'Q4 offsite', mode: 'replace' } });
    expect(replaced.body).toMatchObject({ changed: 3, skipped: [] });
    for (const row of [a, b, c]) expect((await notesOf(row.id)).memo).toBe('Q4 offsite');
  }, 60_000);

  it.each(joined)(
    'skips a row whose memo and the text appended would read as a $reason, on both endpoints',
    async ({ reason, memo, text, rows: [first, second] }) => {
      const sub = t.sim.data.subAccounts()[3];
      if (!sub) throw new Error('the simulator has too few sub accounts');
      const rows = await allRows(`subAccountId=${encodeURIComponent(sub.id)}&review=unreviewed`);
      const [a, b] = [rows[first], rows[second]];
      if (!a || !b) throw new Error('too few rows');
      await save(a.id, { memo });
      await save(b.id, { memo: 'Client lunch' });
      const tag = `${reason}-${Date.now().toString(36)}`;
      for (const row of [a, b]) await save(row.id, { tags: [tag] });
      const filter = { subAccountId: sub.id, tag };

      const preview = await matching({ filter, memo: { text, mode: 'append' }, preview: true });
      expect(preview.status, JSON.stringify(preview.body)).toBe(200);
      const { matchingDigest } = notesMatchingResultSchema.parse(preview.body);
      const appended = await matching({ filter, memo: { text, mode: 'append' }, matchingDigest });
      expect(appended.status, JSON.stringify(appended.body)).toBe(200);
      expect(appended.body).toMatchObject({
        matching: 2,
        changed: 1,
        skipped: [{ reason, count: 1 }],
      });
      expect((await notesOf(a.id)).memo).toBe(memo);
      expect((await notesOf(b.id)).memo).toBe(`Client lunch\n${text}`);

      // The same through a selection: that row is named with its reason, the other changes.
      const selected = await t.request
        .post('/api/transactions/notes')
        .set(finance.headers())
        .send({
          items: [a, b].map((r) => ({ subAccountId: r.subAccountId, id: r.id })),
          memo: { text, mode: 'append' },
        });
      expect(selected.status, JSON.stringify(selected.body)).toBe(200);
      expect(selected.body.skipped).toEqual([{ transactionId: a.id, reason }]);
      expect(selected.body.changed.map((n: { transactionId: string }) => n.transactionId)).toEqual([
        b.id,
      ]);
      expect((await notesOf(a.id)).memo).toBe(memo);
      expect((await notesOf(b.id)).memo).toBe(`Client lunch\n${text}\n${text}`);
      // Nothing of the joined memo reached the trail either.
      expect(JSON.stringify((await t.audit.list({ limit: 5000 })).items)).not.toContain(
        JSON.stringify(`${memo}\n${text}`).slice(1, -1),
      );
    },
    60_000,
  );

  it('two people changing the same matching rows at once: each row changes once, the other is told why', async () => {
    const sub = t.sim.data.subAccounts()[0];
    if (!sub) throw new Error('the simulator has too few sub accounts');
    // Sixty of the sub account's rows, tagged by a selection, are the filter's set.
    const unreviewed = await allRows(
      `subAccountId=${encodeURIComponent(sub.id)}&review=unreviewed`,
    );
    const rows = unreviewed.slice(0, 60);
    const tagged = await t.request
      .post('/api/transactions/notes')
      .set(finance.headers())
      .send({
        items: rows.map((r) => ({ subAccountId: r.subAccountId, id: r.id })),
        addTags: ['race'],
      });
    expect(tagged.status).toBe(200);
    const filter = { subAccountId: sub.id, review: 'unreviewed', tag: 'race' };
    const other = await t.signIn('admin');
    const [one, two] = await Promise.all([
      matching({ filter, reviewed: true }),
      t.request
        .post('/api/transactions/notes/matching')
        .set(other.headers())
        .send({ filter, reviewed: true }),
    ]);
    expect([one.status, two.status]).toEqual([200, 200]);
    const results = [one.body, two.body].map((b) => notesMatchingResultSchema.parse(b));
    // Whichever went second found fewer or skipped the ones already reviewed: never twice.
    const changed = results.reduce((sum, r) => sum + r.changed, 0);
    expect(changed).toBe(rows.length);
    const perRow = (await t.audit.list({ limit: 5000 })).items.filter(
      (r) =>
        r.action === 'transaction.annotate' &&
        (r.requestId === one.headers['x-request-id'] ||
          r.requestId === two.headers['x-request-id']),
    );
    expect(perRow.map((r) => r.target).sort()).toEqual(rows.map((r) => r.id).sort());
  }, 60_000);

  it('answers bad input with a clear 400 and changes nothing', async () => {
    const sub = t.sim.data.subAccounts()[0];
    if (!sub) throw new Error('no sub account');
    const filter = { subAccountId: sub.id };
    const before = await allRows(`subAccountId=${encodeURIComponent(sub.id)}&tag=never-set`);
    for (const bad of [
      { filter },
      { addTags: ['x'] },
      { filter: { review: 'maybe' }, addTags: ['x'] },
      { filter: { from: '2', to: '1' }, addTags: ['x'] },
      { filter, addTags: ['never-set'], reviewed: false },
      { filter, memo: { text: '', mode: 'append' } },
      { filter, memo: { text: 'x', mode: 'prepend' } },
      { filter, addTags: [testPan(9)] },
      { filter, memo: { text: `card ${testPan(9)}`, mode: 'replace' } },
      { filter, categoryId: 'no-such-category' },
      { filter, categoryId: 'no-such-category', preview: true },
      { filter, addTags: ['never-set'], items: [] },
    ]) {
      const res = await matching(bad);
      expect(res.status, JSON.stringify(bad).slice(0, 80)).toBe(400);
      expect(apiErrorBodySchema.parse(res.body).detail).not.toBe('');
    }
    expect(await allRows(`subAccountId=${encodeURIComponent(sub.id)}&tag=never-set`)).toEqual(
      before,
    );
  }, 60_000);

  it('refuses a change to an archived category as its preview does, and audits the refusal of a selection and of a filter', async () => {
    const sub = t.sim.data.subAccounts()[1];
    if (!sub) throw new Error('the simulator has too few sub accounts');
    const rows = (
      await allRows(`subAccountId=${encodeURIComponent(sub.id)}&review=unreviewed`)
    ).slice(0, 3);
    expect(rows).toHaveLength(3);
    const category = await createCategory('6990', 'Archived later');
    const archived = await t.request
      .patch(`/api/accounting-categories/${encodeURIComponent(category.id)}`)
      .set(admin.headers())
      .send({ archived: true });
    expect(archived.status, JSON.stringify(archived.body)).toBe(200);
    const filter = { subAccountId: sub.id, review: 'unreviewed' };

    const preview = await matching({ filter, categoryId: category.id, preview: true });
    expect(preview.status, JSON.stringify(preview.body)).toBe(409);
    expect(apiErrorBodySchema.parse(preview.body).code).toBe('category_archived');
    const byFilter = await matching({ filter, categoryId: category.id });
    expect(byFilter.status, JSON.stringify(byFilter.body)).toBe(409);
    const bySelection = await t.request
      .post('/api/transactions/notes')
      .set(finance.headers())
      .send({
        items: rows.map((r) => ({ subAccountId: r.subAccountId, id: r.id })),
        categoryId: category.id,
      });
    expect(bySelection.status, JSON.stringify(bySelection.body)).toBe(409);
    expect(apiErrorBodySchema.parse(bySelection.body).code).toBe('category_archived');
    for (const row of rows) expect((await notesOf(row.id)).categoryId).not.toBe(category.id);

    const records = (await t.audit.list({ limit: 5000 })).items;
    const of = (res: { headers: Record<string, string> }) =>
      records.filter((r) => r.requestId === res.headers['x-request-id']);
    // The preview changes nothing and records nothing; each refused change is one failed record.
    expect(of(preview)).toEqual([]);
    expect(of(byFilter)).toEqual([
      expect.objectContaining({
        action: 'transaction.bulkNotes',
        target: 'matching',
        outcome: 'failed',
        actor: t.credentials.finance.email,
        after: { category: '6990 Archived later' },
        detail: expect.stringMatching(
          new RegExp(`^filter subAccountId=${encodeURIComponent(sub.id)}.*category_archived$`),
        ),
      }),
    ]);
    expect(of(bySelection)).toEqual([
      expect.objectContaining({
        action: 'transaction.bulkNotes',
        target: 'selection',
        outcome: 'failed',
        detail: '3 chosen; 3 to change; category_archived',
      }),
    ]);
  }, 60_000);

  it('changes only the rows previewed: a row the filter gives by the confirmation and not before refuses it, with nothing changed', async () => {
    const sub = t.sim.data.subAccounts()[4] ?? t.sim.data.subAccounts()[0];
    if (!sub) throw new Error('the simulator has too few sub accounts');
    const rows = (
      await allRows(`subAccountId=${encodeURIComponent(sub.id)}&review=unreviewed`)
    ).slice(0, 4);
    expect(rows).toHaveLength(4);
    const tag = `digest-${Date.now().toString(36)}`;
    const tagRows = (some: typeof rows) =>
      t.request
        .post('/api/transactions/notes')
        .set(admin.headers())
        .send({
          items: some.map((r) => ({ subAccountId: r.subAccountId, id: r.id })),
          addTags: [tag],
        });
    expect((await tagRows(rows.slice(0, 3))).status).toBe(200);
    const filter = { subAccountId: sub.id, review: 'unreviewed', tag };

    const preview = notesMatchingResultSchema.parse(
      (await matching({ filter, reviewed: true, preview: true })).body,
    );
    expect(preview).toMatchObject({ matching: 3, changed: 3 });
    // Someone else tags a fourth row into the filter before the person confirms.
    expect((await tagRows(rows.slice(3))).status).toBe(200);
    const refused = await matching({
      filter,
      reviewed: true,
      matchingDigest: preview.matchingDigest,
    });
    expect(refused.status, JSON.stringify(refused.body)).toBe(409);
    const problem = apiErrorBodySchema.parse(refused.body);
    expect(problem.code).toBe('matching_changed');
    expect(problem.detail).toContain('4 match now');
    for (const row of rows) expect((await notesOf(row.id)).review.state).toBe('unreviewed');
    const records = (await t.audit.list({ limit: 5000 })).items.filter(
      (r) => r.requestId === refused.headers['x-request-id'],
    );
    expect(records).toEqual([
      expect.objectContaining({
        action: 'transaction.bulkNotes',
        target: 'matching',
        outcome: 'failed',
        detail: expect.stringMatching(/4 matching; matching_changed$/),
      }),
    ]);

    // Counted again: the new digest names the four rows, and all four change.
    const recount = notesMatchingResultSchema.parse(
      (await matching({ filter, reviewed: true, preview: true })).body,
    );
    expect(recount.matchingDigest).not.toBe(preview.matchingDigest);
    const done = await matching({ filter, reviewed: true, matchingDigest: recount.matchingDigest });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body).toMatchObject({
      matching: 4,
      changed: 4,
      matchingDigest: recount.matchingDigest,
    });
    for (const row of rows) expect((await notesOf(row.id)).review.state).toBe('reviewed');
    // A digest that is not one is bad input.
    const bad = await matching({ filter, reviewed: false, matchingDigest: 'not a digest!' });
    expect(bad.status).toBe(400);
  }, 60_000);
});
