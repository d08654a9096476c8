// The month close's counts over HTTP, on both engines: "to review", "no category" and "missing
// receipt" count the money that moved or will (docs/money.md: settled, refund and dispute
// posted, pending to post) and never a row that moved nothing (declined, canceled, failed,
// reversed, returned); declined, canceled and failed are counted apart. The oracle below is the
// table of docs/money.md written by hand; it does not import the product's definition.
import { randomBytes } from 'node:crypto';
import {
  attentionSchema,
  indexPageSchema,
  indexTotalsAnswerSchema,
} from '@card-console/shared/api/transaction-index';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresEngine } from '../../platform/sql/sql-engine';
import { openStores } from '../../stores';
import { silentLogger } from '../../test/audit-cluster';
import {
  type ContractCardService,
  startContractCardService,
} from '../../test/contract-card-service';
import { migratedMemoryEngine } from '../../test/engines/embedded';
import { type PostgresEngine, startPostgres } from '../../test/engines/postgres';
import { ManualClock, startTestApp, type TestApp, type TestSession } from '../../test/harness';
import { settledAnswer } from '../../test/settled-index';

const NOW = Date.UTC(2026, 10, 20, 15);
const DAY = 86_400_000;
/** Statuses whose money moved or will: posted (settled, refund, dispute) and pending. */
const MOVED = ['pending', 'settled', 'refund', 'dispute'];

const rows = [
  // Money that moved or will: to review.
  { id: 'settled', status: 'settled', amountCents: -100_00, card: true },
  { id: 'pending', status: 'pending', amountCents: -50_00, card: true },
  { id: 'refund', status: 'refund', amountCents: 20_00, card: true },
  { id: 'disputed', status: 'dispute', amountCents: -80_00, card: true },
  { id: 'ach', status: 'settled', amountCents: -300_00, card: false },
  { id: 'reviewed', status: 'settled', amountCents: -9_00, card: true },
  // Moved nothing: never to review.
  { id: 'declined', status: 'declined', amountCents: -728_82, card: true },
  { id: 'canceled', status: 'canceled', amountCents: -10_00, card: true },
  { id: 'failed funding', status: 'failed', amountCents: 106_400_00, card: false },
  { id: 'reversed', status: 'reversed', amountCents: -5_00, card: true },
  { id: 'returned', status: 'returned', amountCents: -7_00, card: false },
];

function world() {
  return {
    subAccounts: [{ id: 'sub_1', name: 'Operating' }],
    cards: [{ id: 'card_1', last4: '4242', name: 'Travel', status: 'active' }],
    transactions: rows.map((r, i) => ({
      subAccountId: 'sub_1',
      item: {
        id: r.id,
        date: new Date(NOW - (i + 1) * 3_600_000).toISOString(),
        description: r.card ? `Purchase ${r.id}` : `Transfer ${r.id}`,
        amountCents: r.amountCents,
        status: r.status,
        referenceNumber: `ref ${r.id}`,
        ...(r.card
          ? { cardId: 'card_1', merchantData: { description: 'Shop', categoryCode: '5812' } }
          : {}),
      },
    })),
    pageSize: { subAccounts: 5, cards: 5, transactions: 4 },
    cursors: ['next'],
    withCount: false,
  };
}

let service: ContractCardService;
let postgres: PostgresEngine;
beforeAll(async () => {
  [service, postgres] = await Promise.all([
    startContractCardService('attention-key'),
    startPostgres(),
  ]);
  service.setWorld(world());
}, 120_000);
afterAll(async () => {
  await service?.close();
  await postgres?.destroy();
});

const engines = {
  embedded: async () => migratedMemoryEngine(),
  postgres: async () =>
    postgresEngine(
      new pg.Pool({ connectionString: await postgres.createDatabase('attention'), max: 4 }),
    ),
};

for (const engine of Object.keys(engines) as (keyof typeof engines)[]) {
  describe(`the month close's counts on the ${engine} engine`, () => {
    let t: TestApp;
    let finance: TestSession;
    beforeAll(async () => {
      t = await startTestApp({
        upstream: { url: service.url, apiKey: service.apiKey },
        clock: new ManualClock(NOW),
        env: { sessionSecret: randomBytes(32).toString('hex') },
        stores: openStores({ open: engines[engine], logger: silentLogger }),
      });
      finance = await t.signIn('finance');
    }, 60_000);
    afterAll(async () => t?.close());

    const period = `from=${NOW - 2 * DAY}&to=${NOW}`;
    const list = (query: string) =>
      settledAnswer(t, finance, `/api/index/transactions?${period}&${query}`, (b) =>
        indexPageSchema.parse(b),
      );
    const totals = (query: string) =>
      settledAnswer(t, finance, `/api/index/transactions/totals?${period}&${query}`, (b) =>
        indexTotalsAnswerSchema.parse(b),
      );

    it('"to review" and its money leave out what moved no money; those are counted apart', async () => {
      const reviewed = await t.request
        .patch('/api/transactions/reviewed/notes')
        .set(finance.headers())
        .send({ version: 0, reviewed: true });
      expect(reviewed.status, JSON.stringify(reviewed.body)).toBe(200);
      const counts = await settledAnswer(t, finance, `/api/index/attention?${period}`, (b) =>
        attentionSchema.parse(b),
      );
      // settled, pending, refund, disputed, ach; their money out: the charges and the payment.
      expect(counts.unreviewed).toEqual({ count: 5, debitCents: 100_00 + 50_00 + 80_00 + 300_00 });
      expect(counts.uncategorized).toEqual({
        count: 6,
        debitCents: 100_00 + 50_00 + 80_00 + 300_00 + 9_00,
      });
      // Money moved of $75 or more with no receipt: the settled, the disputed and the payment.
      expect(counts.missingReceipt).toEqual({
        count: 3,
        debitCents: 100_00 + 80_00 + 300_00,
        fromCents: 75_00,
      });
      // Declined (attempted): declined, canceled and the failed funding credit.
      expect(counts.declined).toEqual({ count: 3, cents: -728_82 - 10_00 + 106_400_00 });

      // The list of "to review" (the preset's filter) is exactly those rows: no failed credit.
      const moved = MOVED.map((s) => `status=${s}`).join('&');
      const toReview = await list(`review=unreviewed&${moved}`);
      expect(toReview.items.map((r) => r.id).sort()).toEqual(
        ['ach', 'disputed', 'pending', 'refund', 'settled'].sort(),
      );
      expect((await totals(`review=unreviewed&${moved}`)).summary.count).toBe(
        counts.unreviewed.count,
      );
      const attempted = await totals('status=declined&status=canceled&status=failed');
      expect(attempted.summary.count).toBe(counts.declined.count);
    });
  });
}
