// The merchant a transaction's merchant text names, over HTTP against rows the test wrote: one
// merchant written four ways (a facilitator's prefix, a store number, cities, a town the
// normaliser does not know), another merchant whose name only starts the same, and the list
// filtered by every text the answer names holds exactly that merchant's rows. The list, its
// totals and its CSV filtered by the merchant's name, and the Overview's top merchants, hold
// the same rows and the same money, checked against the rows the test wrote.

import { apiErrorBodySchema } from '@card-console/shared/api/error';
import { overviewSchema } from '@card-console/shared/api/overview';
import {
  indexMerchantSchema,
  indexPageSchema,
  indexTotalsAnswerSchema,
} from '@card-console/shared/api/transaction-index';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { textBody } from '../../test/csv';
import { startTestApp, type TestApp, type TestSession } from '../../test/harness';
import { settledIndexList } from '../../test/settled-index';

const ACME = [
  'SQ *ACME FUEL SEATTLE WA',
  'ACME FUEL #0042 DENVER CO',
  'ACME FUEL SEATTLE WA',
  'ACME FUEL MOAB UT',
];
const OTHER = 'ACME FUEL DEPOT SEATTLE WA';

let t: TestApp;
let finance: TestSession;
let admin: TestSession;
let subAccountId: string;

beforeAll(async () => {
  t = await startTestApp({
    sim: { subAccounts: 1, cards: 1, transactions: 0, months: 1, rateLimit: false },
  });
  finance = await t.signIn('finance');
  admin = await t.signIn('admin');
  subAccountId = t.sim.data.subAccounts()[0]?.id ?? '';
  const cardId = t.sim.data.cards()[0]?.id ?? '';
  // The plain Seattle text twice: the most used comes first.
  for (const [i, merchantDescription] of [...ACME, ACME[2] as string, OTHER].entries()) {
    t.sim.testing.addTransaction({
      subAccountId,
      cardId,
      amountCents: -(4_200 + i * 101),
      status: 'settled',
      description: 'Acme Fuel',
      merchantDescription,
    });
  }
  t.clock.set(Math.max(t.clock.now(), Date.now() + 1_000));
  await settledIndexList(t, finance, `?subAccountId=${subAccountId}`);
}, 120_000);
afterAll(async () => t?.close());

/** A CSV export's rows by their header, once it answered 200. */
async function csvOf(path: string): Promise<Record<string, string>[]> {
  const res = await t.request.get(path).set(finance.headers()).buffer(true).parse(textBody);
  expect(res.status).toBe(200);
  return parse(res.body as string, { columns: true, bom: true }) as Record<string, string>[];
}

const merchantOf = (descriptor: string) =>
  t.request
    .get(`/api/index/merchant?descriptor=${encodeURIComponent(descriptor)}`)
    .set(finance.headers());

describe('the merchant of a merchant text', () => {
  it('names the merchant and every text of it the index holds, the most used first', async () => {
    for (const descriptor of ACME) {
      const res = await merchantOf(descriptor);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const merchant = indexMerchantSchema.parse(res.body);
      expect(merchant).toMatchObject({ key: 'acme fuel', name: 'Acme Fuel', more: 0 });
      expect(merchant.descriptors[0]).toBe('ACME FUEL SEATTLE WA');
      expect([...merchant.descriptors].sort()).toEqual([...ACME].sort());
    }
    const other = indexMerchantSchema.parse((await merchantOf(OTHER)).body);
    expect(other).toMatchObject({ name: 'Acme Fuel Depot', descriptors: [OTHER] });
  });

  it('the list filtered by those texts holds every row of the merchant, and only those', async () => {
    const merchant = indexMerchantSchema.parse((await merchantOf(ACME[0] as string)).body);
    const query = merchant.descriptors.map((d) => `merchant=${encodeURIComponent(d)}`).join('&');
    const res = await t.request.get(`/api/index/transactions?${query}`).set(finance.headers());
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const page = indexPageSchema.parse(res.body);
    expect(page.items.map((r) => r.merchant?.description).sort()).toEqual(
      [...ACME, ACME[2]].sort(),
    );
  });

  it('a text the index does not hold is its own merchant; a missing or long one is a 400', async () => {
    const unknown = indexMerchantSchema.parse(
      (await merchantOf('TST* NEW PLACE #12 BOISE ID')).body,
    );
    expect(unknown).toMatchObject({
      name: 'New Place',
      descriptors: ['TST* NEW PLACE #12 BOISE ID'],
    });
    for (const path of [
      '/api/index/merchant',
      `/api/index/merchant?descriptor=${'x'.repeat(201)}`,
    ]) {
      const res = await t.request.get(path).set(finance.headers());
      expect(res.status).toBe(400);
      expect(apiErrorBodySchema.parse(res.body).code).toBe('invalid_query');
    }
  });
});

/** The rows the test wrote: Acme Fuel's, by their texts, and what they cost. */
const ACME_ROWS = [...ACME, ACME[2] as string].map((text, i) => ({ text, cents: 4_200 + i * 101 }));
const ACME_CENTS = ACME_ROWS.reduce((sum, r) => sum + r.cents, 0);

describe('a merchant by its name, however it is written', () => {
  const list = (query: string) =>
    t.request.get(`/api/index/transactions?${query}`).set(finance.headers());

  it('the list holds every row of the merchant and only those, whatever the case of the name', async () => {
    for (const name of ['Acme Fuel', 'ACME FUEL', 'acme  fuel']) {
      const res = await list(`merchantName=${encodeURIComponent(name)}`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(
        indexPageSchema
          .parse(res.body)
          .items.map((r) => r.merchant?.description)
          .sort(),
      ).toEqual(ACME_ROWS.map((r) => r.text).sort());
    }
    const other = indexPageSchema.parse(
      (await list(`merchantName=${encodeURIComponent('Acme Fuel Depot')}`)).body,
    );
    expect(other.items.map((r) => r.merchant?.description)).toEqual([OTHER]);
  });

  it('narrows with a text of it, names any of several, and a name the index has not seen matches nothing', async () => {
    const both = indexPageSchema.parse(
      (await list(`merchantName=Acme%20Fuel&merchant=${encodeURIComponent(ACME[2] as string)}`))
        .body,
    );
    expect(both.items.map((r) => r.merchant?.description)).toEqual([ACME[2], ACME[2]]);
    const elsewhere = indexPageSchema.parse(
      (await list(`merchantName=Acme%20Fuel&merchant=${encodeURIComponent(OTHER)}`)).body,
    );
    expect(elsewhere.items).toEqual([]);
    const several = indexPageSchema.parse(
      (await list('merchantName=Acme%20Fuel&merchantName=Acme%20Fuel%20Depot')).body,
    );
    expect(several.items).toHaveLength(ACME_ROWS.length + 1);
    const nobody = indexPageSchema.parse((await list('merchantName=Nobody%20Here')).body);
    expect(nobody.items).toEqual([]);
  });

  it('its totals and its CSV hold the same rows and the same money, to the cent', async () => {
    const totals = await t.request
      .get('/api/index/transactions/totals?merchantName=Acme%20Fuel&by=merchant')
      .set(finance.headers());
    expect(totals.status, JSON.stringify(totals.body)).toBe(200);
    const answer = indexTotalsAnswerSchema.parse(totals.body);
    expect(answer.summary.count).toBe(ACME_ROWS.length);
    expect(answer.summary.buckets.card).toMatchObject({
      count: ACME_ROWS.length,
      cents: -ACME_CENTS,
    });
    // By merchant: its four texts are one group, named.
    expect(answer.breakdown?.groups).toEqual([
      expect.objectContaining({ key: 'Acme Fuel', count: ACME_ROWS.length }),
    ]);
    const all = await t.request
      .get('/api/index/transactions/totals?by=merchant')
      .set(finance.headers());
    const groups = indexTotalsAnswerSchema.parse(all.body).breakdown?.groups ?? [];
    expect(groups.map((g) => [g.key, g.count, g.buckets.card.cents])).toEqual([
      ['Acme Fuel', ACME_ROWS.length, -ACME_CENTS],
      ['Acme Fuel Depot', 1, -(4_200 + ACME_ROWS.length * 101)],
    ]);

    const rows = await csvOf('/api/index/transactions/export.csv?merchantName=Acme%20Fuel');
    expect(rows.map((r) => r.merchant).sort()).toEqual(ACME_ROWS.map((r) => r.text).sort());
  });

  it("the Overview's top merchants group the texts, with a row's texts most spend first", async () => {
    const day = new Date(t.clock.now()).toISOString().slice(0, 10);
    const res = await t.request
      .get(`/api/overview?from=${day}&to=${day}&tz=UTC`)
      .set(finance.headers());
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const overview = overviewSchema.parse(res.body);
    const acme = overview.merchants.find((m) => m.key === 'Acme Fuel');
    // The plain Seattle text twice (4,402 + 4,604): the most spend.
    expect(acme).toEqual({
      key: 'Acme Fuel',
      label: 'Acme Fuel',
      spentCents: ACME_CENTS,
      count: ACME_ROWS.length,
      ways: ACME.length,
      descriptors: [ACME[2], ACME[3], ACME[1], ACME[0]],
    });
    expect(overview.merchants.find((m) => m.key === 'Acme Fuel Depot')).toMatchObject({
      ways: 1,
      descriptors: [OTHER],
      count: 1,
    });
  });

  it('a name too long, or too many names, is a 400 naming the parameter', async () => {
    for (const query of [
      `merchantName=${'x'.repeat(201)}`,
      Array.from({ length: 21 }, (_, i) => `merchantName=m${i}`).join('&'),
      'merchantName=',
    ]) {
      const res = await list(query);
      expect(res.status, query).toBe(400);
      const body = apiErrorBodySchema.parse(res.body);
      expect(body.code).toBe('invalid_query');
      expect(JSON.stringify(body)).toContain('merchantName');
    }
  });
});

describe("an admin's name for a merchant", () => {
  const list = async (name: string) => {
    const res = await t.request
      .get(`/api/index/transactions?merchantName=${encodeURIComponent(name)}`)
      .set(finance.headers());
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return indexPageSchema
      .parse(res.body)
      .items.map((r) => r.merchant?.description)
      .sort();
  };
  const totalOf = async (name: string) => {
    const res = await t.request
      .get(`/api/index/transactions/totals?merchantName=${encodeURIComponent(name)}`)
      .set(finance.headers());
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return indexTotalsAnswerSchema.parse(res.body).summary.buckets.card;
  };
  const overviewRow = async (name: string) => {
    const day = new Date(t.clock.now()).toISOString().slice(0, 10);
    const res = await t.request
      .get(`/api/overview?from=${day}&to=${day}&tz=UTC`)
      .set(finance.headers());
    return overviewSchema.parse(res.body).merchants.find((m) => m.key === name);
  };
  const name = (merchant: string, to: string, session = admin) =>
    t.request.put('/api/index/merchants/name').set(session.headers()).send({ merchant, name: to });
  const auditFor = async (requestId: string | undefined) =>
    (await t.audit.list({ limit: 1000 })).items.filter((r) => r.requestId === requestId);
  const acmeTexts = ACME_ROWS.map((r) => r.text).sort();

  it('a new name renames it in the list, its totals, the detail and the Overview, audited', async () => {
    const res = await name('Acme Fuel', 'Acme Fuel Co.');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ key: 'acme fuel co', name: 'Acme Fuel Co.', groups: 1 });
    expect(await list('Acme Fuel Co.')).toEqual(acmeTexts);
    expect(await list('Acme Fuel')).toEqual([]);
    expect(await totalOf('Acme Fuel Co.')).toMatchObject({ count: 5, cents: -ACME_CENTS });
    const merchant = indexMerchantSchema.parse((await merchantOf(ACME[1] as string)).body);
    expect(merchant).toMatchObject({
      key: 'acme fuel co',
      name: 'Acme Fuel Co.',
      named: { by: t.credentials.admin.email, groups: 1 },
    });
    expect([...merchant.descriptors].sort()).toEqual([...ACME].sort());
    expect(await overviewRow('Acme Fuel Co.')).toMatchObject({ spentCents: ACME_CENTS, ways: 4 });
    expect(await auditFor(res.headers['x-request-id'])).toEqual([
      expect.objectContaining({
        action: 'merchant.name',
        outcome: 'success',
        actor: t.credentials.admin.email,
        target: 'merchant:acme fuel',
        before: { name: 'Acme Fuel' },
        after: { name: 'Acme Fuel Co.' },
        detail: '1 group of descriptors: acme fuel',
      }),
    ]);
  });

  it("another merchant's name makes the two one, in the list, the totals, the CSV and the Overview", async () => {
    const res = await name('Acme Fuel Depot', 'acme fuel co');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(await list('Acme Fuel Co.')).toEqual([...acmeTexts, OTHER].sort());
    const depotCents = 4_200 + ACME_ROWS.length * 101;
    expect(await totalOf('Acme Fuel Co.')).toMatchObject({
      count: 6,
      cents: -(ACME_CENTS + depotCents),
    });
    const rows = await csvOf('/api/index/transactions/export.csv?merchantName=Acme%20Fuel%20Co.');
    expect(rows.map((r) => r.merchant).sort()).toEqual([...acmeTexts, OTHER].sort());
    expect(await overviewRow('Acme Fuel Co.')).toMatchObject({
      spentCents: ACME_CENTS + depotCents,
      count: 6,
      ways: 5,
    });
    expect(await overviewRow('Acme Fuel Depot')).toBeUndefined();
  });

  it('a merchant the index does not know is a 404, audited; a name without a letter or digit a 400', async () => {
    const res = await name('Nobody Here', 'Somebody');
    expect(res.status).toBe(404);
    expect(apiErrorBodySchema.parse(res.body).code).toBe('not_found');
    expect(await auditFor(res.headers['x-request-id'])).toEqual([
      expect.objectContaining({ action: 'merchant.name', outcome: 'failed', detail: 'not_found' }),
    ]);
    for (const body of [
      { merchant: 'Acme Fuel Co.', name: '  ' },
      { merchant: 'Acme Fuel Co.', name: '***' },
      { merchant: 'Acme Fuel Co.', name: 'x'.repeat(201) },
      { merchant: 'Acme Fuel Co.' },
      { merchant: 'Acme Fuel Co.', name: 'Fine', extra: 1 },
    ]) {
      const bad = await t.request.put('/api/index/merchants/name').set(admin.headers()).send(body);
      expect(bad.status, JSON.stringify(body)).toBe(400);
      expect(apiErrorBodySchema.parse(bad.body).code).toBe('invalid_body');
    }
    expect(await list('Acme Fuel Co.')).toHaveLength(6);
  });

  it('finance people cannot name merchants (403, audited as denied)', async () => {
    const res = await name('Acme Fuel Co.', 'Mine', finance);
    expect(res.status).toBe(403);
    expect(await list('Acme Fuel Co.')).toHaveLength(6);
  });

  it('taking the name off gives each its own name back; again is a 404', async () => {
    const res = await t.request
      .delete('/api/index/merchants/name?merchant=Acme%20Fuel%20Co.')
      .set(admin.headers());
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ key: 'acme fuel co', name: 'Acme Fuel Co.', groups: 2 });
    expect(await list('Acme Fuel')).toEqual(acmeTexts);
    expect(await list('Acme Fuel Depot')).toEqual([OTHER]);
    expect(await list('Acme Fuel Co.')).toEqual([]);
    expect(await auditFor(res.headers['x-request-id'])).toEqual([
      expect.objectContaining({
        action: 'merchant.unname',
        outcome: 'success',
        target: 'merchant:acme fuel co',
        detail: '2 groups of descriptors: acme fuel, acme fuel depot',
      }),
    ]);
    const again = await t.request
      .delete('/api/index/merchants/name?merchant=Acme%20Fuel%20Co.')
      .set(admin.headers());
    expect(again.status).toBe(404);
  });
});

describe('a merchant rule', () => {
  it('made on one way a merchant is written books the others the sync writes; another merchant stays unbooked', async () => {
    const category = await t.request
      .post('/api/accounting-categories')
      .set(admin.headers())
      .send({ code: '6700', name: 'Fuel' });
    expect(category.status, JSON.stringify(category.body)).toBe(201);
    const rule = await t.request
      .post('/api/merchant-rules')
      .set(admin.headers())
      .send({ merchant: ACME[1], categoryId: category.body.id });
    expect(rule.status, JSON.stringify(rule.body)).toBe(201);
    const cardId = t.sim.data.cards()[0]?.id ?? '';
    // Written since the rule: one of its other ways, a way the index had not seen, and another
    // merchant that only starts the same.
    for (const merchantDescription of [ACME[0], 'SQ *ACME FUEL DENVER CO', OTHER]) {
      t.sim.testing.addTransaction({
        subAccountId,
        cardId,
        amountCents: -777,
        status: 'settled',
        description: 'After the rule',
        merchantDescription,
      });
    }
    t.clock.set(t.clock.now() + 60_000);
    await settledIndexList(t, finance, `?subAccountId=${subAccountId}&refresh=1`);
    const page = await settledIndexList(
      t,
      finance,
      `?subAccountId=${subAccountId}&minCents=777&maxCents=777`,
    );
    const booked = new Map(
      page.items.map((r) => [r.merchant?.description, r.notes?.categoryId ?? null]),
    );
    expect(Object.fromEntries(booked)).toEqual({
      [ACME[0] as string]: category.body.id,
      'SQ *ACME FUEL DENVER CO': category.body.id,
      [OTHER]: null,
    });
  });
});
