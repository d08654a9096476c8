// Card owners and teams over HTTP (issue 49): an admin gives cards an owner and a team; the card,
// the cards list (filtered by owner and by team), the list of owners, and the index's list,
// totals by owner and by team and CSV read them, checked against the rows the test wrote, to the
// cent. One owner however its name is typed; bad input a 400, an unknown card a 404, both
// audited; a change audited with what it was and became; nothing to take off, or an owner and
// team given as they are, nothing written or recorded.
import { cardOwnerListSchema, cardOwnershipSchema } from '@card-console/shared/api/card-owners';
import { cardPageSchema, cardSchema } from '@card-console/shared/api/cards';
import { apiErrorBodySchema } from '@card-console/shared/api/error';
import {
  indexPageSchema,
  indexTotalsAnswerSchema,
} from '@card-console/shared/api/transaction-index';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../platform/users/password-hash';
import { textBody } from '../../test/csv';
import { startTestApp, type TestApp, type TestSession } from '../../test/harness';
import { settledIndexList } from '../../test/settled-index';

let t: TestApp;
let finance: TestSession;
let admin: TestSession;
let subAccountId: string;
let cards: string[];
/** The charges the test wrote, by card: the oracle the totals are checked against. */
const written = new Map<string, number[]>();

beforeAll(async () => {
  t = await startTestApp({
    sim: { subAccounts: 1, cards: 4, transactions: 0, months: 1, rateLimit: false },
  });
  finance = await t.signIn('finance');
  admin = await t.signIn('admin');
  subAccountId = t.sim.data.subAccounts()[0]?.id ?? '';
  cards = t.sim.data.cards().map((c) => c.id);
  // A person in People (who signs in): an owner with their email is one.
  await (await t.stores.people()).importUsers([
    {
      email: 'finn@example.test',
      role: 'finance',
      passwordHash: await hashPassword('finn-password', { N: 1024, r: 8, p: 1 }),
    },
  ]);
  for (const [k, cardId] of cards.entries()) {
    for (let i = 0; i <= k; i++) {
      const amountCents = -(1_000 * (k + 1) + 37 * i + 1);
      t.sim.testing.addTransaction({
        subAccountId,
        cardId,
        amountCents,
        status: 'settled',
        description: `Charge ${k}.${i}`,
        merchantDescription: `SHOP ${k}`,
      });
      written.set(cardId, [...(written.get(cardId) ?? []), amountCents]);
    }
  }
  t.clock.set(Math.max(t.clock.now(), Date.now() + 1_000));
  await settledIndexList(t, finance, `?subAccountId=${subAccountId}`);
}, 120_000);
afterAll(async () => t?.close());

const card = (k: number) => cards[k] as string;
const sumOf = (...ks: number[]) =>
  ks.flatMap((k) => written.get(card(k)) ?? []).reduce((a, b) => a + b, 0);
const countOf = (...ks: number[]) => ks.flatMap((k) => written.get(card(k)) ?? []).length;

const setOwner = (k: number | string, body: unknown, who: TestSession = admin) =>
  t.request
    .put(`/api/cards/${encodeURIComponent(typeof k === 'number' ? card(k) : k)}/owner`)
    .set(who.headers())
    .send(body as object);

async function auditOf(cardId: string) {
  const res = await t.request
    .get(`/api/audit?action=card.owner&cardId=${encodeURIComponent(cardId)}`)
    .set(admin.headers());
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return (res.body as { items: Record<string, unknown>[] }).items;
}

describe("a card's owner and team", () => {
  it('are given by an admin, audited with what they were and became; one owner however the name is typed', async () => {
    const first = await setOwner(0, {
      owner: { name: '  Elena Walsh ', email: 'Elena.Walsh@Example.test' },
      team: 'Sales',
    });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(cardOwnershipSchema.parse(first.body)).toMatchObject({
      cardId: card(0),
      owner: { name: 'Elena Walsh', email: 'elena.walsh@example.test', person: false },
      team: 'Sales',
      updatedBy: 'admin@demo.test',
    });
    // Another spelling of the same owner and team: the first spelling is the one shown.
    const second = await setOwner(1, { owner: { name: 'elena   WALSH' }, team: 'sales' });
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ owner: { name: 'Elena Walsh' }, team: 'Sales' });
    expect(second.body.owner.email).toBeUndefined();
    // An owner who signs in: the email of a person in People.
    const third = await setOwner(2, {
      owner: { name: 'Finn Ance', email: 'finn@example.test' },
      team: null,
    });
    expect(third.status).toBe(200);
    expect(third.body).toMatchObject({ owner: { name: 'Finn Ance', person: true } });
    expect(third.body.team).toBeUndefined();

    const [record] = await auditOf(card(0));
    expect(record).toMatchObject({
      action: 'card.owner',
      outcome: 'success',
      actor: 'admin@demo.test',
      cardId: card(0),
      after: { owner: 'Elena Walsh <elena.walsh@example.test>', team: 'Sales' },
    });
    expect(record?.before).toEqual({});
  });

  it('show on the card and in the cards list, which filters by owner and by team in any case', async () => {
    const one = cardSchema.parse(
      (await t.request.get(`/api/cards/${card(1)}`).set(finance.headers())).body,
    );
    expect(one).toMatchObject({ owner: { name: 'Elena Walsh' }, team: 'Sales' });
    const none = cardSchema.parse(
      (await t.request.get(`/api/cards/${card(3)}`).set(finance.headers())).body,
    );
    expect(none.owner).toBeUndefined();
    expect(none.team).toBeUndefined();

    const listed = async (query: string) => {
      const res = await t.request.get(`/api/cards${query}`).set(finance.headers());
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return cardPageSchema.parse(res.body).items;
    };
    const all = await listed('');
    expect(all.find((c) => c.id === card(0))).toMatchObject({ owner: { name: 'Elena Walsh' } });
    expect((await listed('?owner=ELENA%20walsh')).map((c) => c.id).sort()).toEqual(
      [card(0), card(1)].sort(),
    );
    expect((await listed('?team=sales&owner=Elena%20Walsh')).map((c) => c.id).sort()).toEqual(
      [card(0), card(1)].sort(),
    );
    expect(await listed('?owner=Nobody')).toEqual([]);
    expect((await listed('?owner=Finn%20Ance&team=Sales')).length).toBe(0);

    const owners = cardOwnerListSchema.parse(
      (await t.request.get('/api/card-owners').set(finance.headers())).body,
    );
    expect(owners).toEqual({
      owners: [
        { name: 'Elena Walsh', email: 'elena.walsh@example.test', person: false, cards: 2 },
        { name: 'Finn Ance', email: 'finn@example.test', person: true, cards: 1 },
      ],
      teams: [{ name: 'Sales', cards: 2 }],
    });
  });

  it("narrow the index's list, totals and CSV, and total it by owner and by team, to the cent", async () => {
    const base = `subAccountId=${subAccountId}`;
    const totals = async (query: string) => {
      const res = await t.request
        .get(`/api/index/transactions/totals?${base}&${query}`)
        .set(finance.headers());
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return indexTotalsAnswerSchema.parse(res.body);
    };
    const byOwner = await totals('by=owner');
    expect(
      byOwner.breakdown?.groups.map((g) => [g.key ?? null, g.count, g.buckets.card.cents]),
    ).toEqual(
      [
        ['Elena Walsh', countOf(0, 1), sumOf(0, 1)],
        [null, countOf(3), sumOf(3)],
        ['Finn Ance', countOf(2), sumOf(2)],
      ].sort((x, y) => (x[2] as number) - (y[2] as number)),
    );
    const byTeam = await totals('by=team');
    expect(byTeam.breakdown?.groups.map((g) => [g.key ?? null, g.buckets.card.cents])).toEqual([
      [null, sumOf(2, 3)],
      ['Sales', sumOf(0, 1)],
    ]);
    const elena = await totals('owner=elena%20walsh');
    expect(elena.summary.count).toBe(countOf(0, 1));
    expect(elena.summary.buckets.card.cents).toBe(sumOf(0, 1));
    expect((await totals('owner=Elena%20Walsh&owner=Finn%20Ance')).summary.count).toBe(
      countOf(0, 1, 2),
    );
    expect((await totals('team=Sales')).summary.buckets.card.cents).toBe(sumOf(0, 1));

    const page = indexPageSchema.parse(
      (
        await t.request
          .get(`/api/index/transactions?${base}&owner=Elena%20Walsh`)
          .set(finance.headers())
      ).body,
    );
    expect(new Set(page.items.map((r) => r.cardId))).toEqual(new Set([card(0), card(1)]));
    expect(page.items).toHaveLength(countOf(0, 1));

    const csv = await t.request
      .get(`/api/index/transactions/export.csv?${base}&team=Sales`)
      .set(finance.headers())
      .buffer(true)
      .parse(textBody);
    expect(csv.status).toBe(200);
    const rows = parse(csv.body as string, { columns: true, bom: true }) as unknown[];
    expect(rows).toHaveLength(countOf(0, 1));
  });

  it('refuse bad input with a 400 that says why, and an unknown card with a 404, audited; change nothing', async () => {
    for (const body of [
      { owner: { name: '   ' }, team: null },
      { owner: { name: 'Ann', email: 'not an email' }, team: null },
      { owner: { name: 'Ann' } },
      { owner: { name: 'Ann' }, team: null, extra: 1 },
      { owner: 'Ann', team: null },
      { owner: null, team: 'x'.repeat(101) },
    ]) {
      const res = await setOwner(3, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(apiErrorBodySchema.parse(res.body).detail).toBeTruthy();
    }
    const unknown = await setOwner('no-such-card', { owner: { name: 'Ann' }, team: null });
    expect(unknown.status).toBe(404);
    expect((await auditOf('no-such-card'))[0]).toMatchObject({
      outcome: 'failed',
      detail: 'not_found',
    });
    const still = cardSchema.parse(
      (await t.request.get(`/api/cards/${card(3)}`).set(finance.headers())).body,
    );
    expect(still.owner).toBeUndefined();
    const refused = await setOwner(3, { owner: { name: 'Ann' }, team: null }, finance);
    expect(refused.status).toBe(403);
  });

  it('are taken off together, audited; taking off what is not there records nothing', async () => {
    const off = await setOwner(2, { owner: null, team: null });
    expect(off.status).toBe(200);
    expect(off.body).toEqual({ cardId: card(2) });
    const [record] = await auditOf(card(2));
    expect(record).toMatchObject({
      outcome: 'success',
      before: { owner: 'Finn Ance <finn@example.test>' },
      after: {},
    });
    const records = (await auditOf(card(2))).length;
    expect((await setOwner(2, { owner: null, team: null })).status).toBe(200);
    expect((await auditOf(card(2))).length).toBe(records);
    const owners = cardOwnerListSchema.parse(
      (await t.request.get('/api/card-owners').set(finance.headers())).body,
    );
    expect(owners.owners.map((o) => o.name)).toEqual(['Elena Walsh']);
  });

  it('given as they are, answer the card as it is and write and record nothing; one changed is a change', async () => {
    const given = await setOwner(3, {
      owner: { name: 'Dana Ortiz', email: 'dana@example.test' },
      team: 'Ops',
    });
    expect(given.status, JSON.stringify(given.body)).toBe(200);
    t.clock.set(t.clock.now() + 60_000);
    // The same owner and team, typed as the schema trims and lowers them.
    const same = await setOwner(3, {
      owner: { name: '  Dana Ortiz ', email: 'Dana@Example.test' },
      team: ' Ops',
    });
    expect(same.status, JSON.stringify(same.body)).toBe(200);
    expect(same.body).toEqual(given.body);
    expect(await recordsOf(same.headers['x-request-id'] ?? '')).toEqual([]);
    expect(
      cardSchema.parse((await t.request.get(`/api/cards/${card(3)}`).set(finance.headers())).body),
    ).toMatchObject({ owner: { name: 'Dana Ortiz', email: 'dana@example.test' }, team: 'Ops' });

    const changed = await setOwner(3, {
      owner: { name: 'Dana Ortiz', email: 'dana@example.test' },
      team: 'Field Ops',
    });
    expect(changed.status).toBe(200);
    expect(changed.body.updatedAt).not.toBe(given.body.updatedAt);
    expect(await recordsOf(changed.headers['x-request-id'] ?? '')).toMatchObject([
      {
        action: 'card.owner',
        outcome: 'success',
        before: { owner: 'Dana Ortiz <dana@example.test>', team: 'Ops' },
        after: { owner: 'Dana Ortiz <dana@example.test>', team: 'Field Ops' },
      },
    ]);
  });
});

async function recordsOf(requestId: string) {
  return (await t.audit.list({ limit: 1000 })).items.filter((r) => r.requestId === requestId);
}
