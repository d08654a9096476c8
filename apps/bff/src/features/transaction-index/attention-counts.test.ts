// The month close's counts over HTTP, on both engines: "to review", "no category" and "missing
// receipt" count the money that moved or will (docs/money.md: settled, refund and dispute
// posted, pending to post) and never a row that moved nothing (declined, canceled, failed,
// reversed, returned); declined, canceled and failed are counted apart. The oracle below is the
// table of docs/money.md written by hand; it does not import the product's definition.
import {
  attentionSchema,
  indexPageSchema,
  indexTotalsAnswerSchema,
} from '@card-console/shared/api/transaction-index';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock, type TestApp, type TestSession } from '../../test/harness';
import { contractServiceOnEngines, oneSubAccountWorld } from '../../test/one-sub-account';
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
  return oneSubAccountWorld(
    rows.map((r, i) => ({
      ...r,
      date: new Date(NOW - (i + 1) * 3_600_000).toISOString(),
      description: r.card ? `Purchase ${r.id}` : `Transfer ${r.id}`,
    })),
    4,
  );
}

const upstream = contractServiceOnEngines('attention-key', 'attention');
beforeAll(() => upstream.service.setWorld(world()));

for (const engine of Object.keys(upstream.engines) as (keyof typeof upstream.engines)[]) {
  describe(`the month close's counts on the ${engine} engine`, () => {
    let t: TestApp;
    let finance: TestSession;
    beforeAll(async () => {
      t = await upstream.startApp(engine, new ManualClock(NOW));
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
