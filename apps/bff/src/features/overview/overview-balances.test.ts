// The Overview's balance and card spend, summed over the sub accounts as the card service reports
// them: where one sub account's figure is absent (optional in the contract), the total is absent
// too, never a sum that counts it as $0. Over HTTP, against a card service that follows the
// contract and nothing more.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ContractCardService,
  startContractCardService,
} from '../../test/contract-card-service';
import { settledOverview } from '../../test/expected-overview';
import { startTestApp, type TestApp, type TestSession } from '../../test/harness';
import { unreachableIndex } from '../../test/unreachable-index';

let service: ContractCardService;
let t: TestApp;
let finance: TestSession;

beforeAll(async () => {
  service = await startContractCardService('overview-balances-key');
  t = await startTestApp({
    upstream: { url: service.url, apiKey: service.apiKey },
    stores: unreachableIndex(),
  });
  finance = await t.signIn('finance');
});
afterAll(async () => {
  await t?.close();
  await service?.close();
});

const usd = (amountCents: number) => ({ amountCents, currency: 'USD' });
const world = (subAccounts: Record<string, unknown>[]) => ({
  subAccounts,
  cards: [],
  transactions: [],
  pageSize: { subAccounts: 1, cards: 1, transactions: 1 },
  cursors: ['next'],
  withCount: false,
});

describe("the Overview's balance and card spend over every sub account", () => {
  it('sums every page of them', async () => {
    service.setWorld(
      world([
        { id: 'sa-1', name: 'Ops', balance: usd(1_234_567), spend: usd(250_000) },
        { id: 'sa-2', name: 'Sales', balance: usd(-1_000), spend: usd(99_999) },
      ]),
    );
    const overview = await settledOverview(t, finance, {
      from: '2026-11-01',
      to: '2026-11-07',
      tz: 'UTC',
    });
    expect(overview.balanceCents).toBe(1_233_567);
    expect(overview.spendCents).toBe(349_999);
  });

  it('has no total where a sub account has no figure, rather than counting it as $0', async () => {
    service.setWorld(
      world([
        { id: 'sa-1', name: 'Ops', balance: usd(1_234_567), spend: usd(250_000) },
        { id: 'sa-2', name: 'Sales', spend: usd(99_999) },
      ]),
    );
    const overview = await settledOverview(t, finance, {
      from: '2026-11-08',
      to: '2026-11-14',
      tz: 'UTC',
    });
    expect(overview.balanceCents).toBeUndefined();
    expect(overview.spendCents).toBe(349_999);
  });
});
