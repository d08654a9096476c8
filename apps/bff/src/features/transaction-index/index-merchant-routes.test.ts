// The merchant a transaction's merchant text names, over HTTP against rows the test wrote: one
// merchant written four ways (a facilitator's prefix, a store number, cities, a town the
// normaliser does not know), another merchant whose name only starts the same, and the list
// filtered by every text the answer names holds exactly that merchant's rows.

import { apiErrorBodySchema } from '@card-console/shared/api/error';
import { indexMerchantSchema, indexPageSchema } from '@card-console/shared/api/transaction-index';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
let subAccountId: string;

beforeAll(async () => {
  t = await startTestApp({
    sim: { subAccounts: 1, cards: 1, transactions: 0, months: 1, rateLimit: false },
  });
  finance = await t.signIn('finance');
  subAccountId = t.sim.data.subAccounts()[0]?.id ?? '';
  const cardId = t.sim.data.cards()[0]?.id ?? '';
  // The plain Seattle text twice: the most used comes first.
  for (const merchantDescription of [...ACME, ACME[2] as string, OTHER]) {
    t.sim.testing.addTransaction({
      subAccountId,
      cardId,
      amountCents: -4_200,
      status: 'settled',
      description: 'Acme Fuel',
      merchantDescription,
    });
  }
  t.clock.set(Math.max(t.clock.now(), Date.now() + 1_000));
  await settledIndexList(t, finance, `?subAccountId=${subAccountId}`);
}, 120_000);
afterAll(async () => t?.close());

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
