// The limit preview compares the proposed limits with the card's current ones, over a card
// whose every charge the test wrote: a card with a $300 maximum that holds charges over $300
// (limits change; the simulator does not decline by them), disputed ones among them.
// The expected figures are written by hand from docs/money.md's table: a charge that went
// through is a card debit settled, pending, disputed or (negative) refund; one declined for
// the size limit moved nothing and is counted apart.

import { type LimitImpact, limitImpactSchema } from '@card-console/shared/api/overview';
import type { TransactionStatus } from '@card-console/shared/upstream/enums';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cardValuesSeen } from '../../test/card-values';
import { startTestApp, type TestApp, type TestSession } from '../../test/harness';

const SIZE_LIMIT = 'Exceeds transaction size limit';

interface Charge {
  dollars: number;
  status: TransactionStatus;
  reason?: string;
}

const charges = (status: TransactionStatus, ...dollars: number[]): Charge[] =>
  dollars.map((d) => ({ dollars: d, status }));

/** 30 that went through (20 over $300: 8 up to $400, 12 above; 4 of the 20 disputed). */
const wentThrough: Charge[] = [
  ...charges('settled', 12, 25, 40, 55, 80, 99, 150, 210, 299.99, 300),
  ...charges('settled', 300.01, 320, 350, 375.5, 400),
  ...charges('pending', 310),
  ...charges('dispute', 333, 390),
  ...charges('settled', 400.01, 420, 450, 500, 640, 700, 810, 999.99),
  ...charges('pending', 480, 1_200),
  ...charges('dispute', 415, 2_000),
];
/** Declined for the size limit: two within the current limits, one only within $400, one neither. */
const sizeDeclined: Charge[] = [120, 200, 350, 900].map((dollars) => ({
  dollars,
  status: 'declined',
  reason: SIZE_LIMIT,
}));
/** Rows no limit judges: a refund, a released charge, a canceled one, another decline. */
const neither: Charge[] = [
  { dollars: -500, status: 'refund' },
  { dollars: 350, status: 'reversed' },
  { dollars: 450, status: 'canceled' },
  { dollars: 60, status: 'declined', reason: 'Insufficient funds' },
];

const cents = (c: Charge) => Math.round(c.dollars * 100);
const figure = (xs: Charge[]) => ({
  count: xs.length,
  sumCents: xs.reduce((n, c) => n + cents(c), 0),
});
const outside = (min: number, max: number) => (c: Charge) => cents(c) < min || cents(c) > max;
const inside = (min: number, max: number) => (c: Charge) => !outside(min, max)(c);

let t: TestApp;
let admin: TestSession;
let cardId: string;

beforeAll(async () => {
  t = await startTestApp({
    sim: { subAccounts: 1, cards: 2, transactions: 0, months: 1, rateLimit: false },
  });
  admin = await t.signIn('admin');
  const card = t.sim.data.cards()[0];
  const subAccountId = t.sim.data.subAccounts()[0]?.id;
  if (!card || !subAccountId) throw new Error('no card');
  cardId = card.id;
  const set = await t.request
    .patch(`/api/cards/${cardId}`)
    .set(admin.headers())
    .send({
      transactionSizeLimit: { minimumCents: 0, maximumCents: 30_000 },
      expected: cardValuesSeen(t.sim, cardId),
    });
  expect(set.status, JSON.stringify(set.body)).toBe(200);
  for (const c of [...wentThrough, ...sizeDeclined, ...neither]) {
    t.sim.testing.addTransaction({
      subAccountId,
      cardId,
      amountCents: -cents(c),
      status: c.status,
      ...(c.reason ? { declineReason: c.reason } : {}),
    });
  }
  // The rows are dated by the simulator's clock: the BFF's window must end after them.
  t.clock.set(Math.max(t.clock.now(), Date.now() + 1_000));
});
afterAll(async () => t.close());

async function preview(
  query: { minimumCents?: string; maximumCents?: string } = {},
): Promise<LimitImpact> {
  const res = await t.request
    .get(`/api/cards/${cardId}/limit-impact`)
    .query(query)
    .set(admin.headers());
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return limitImpactSchema.parse(res.body);
}

describe('the limit preview compares the proposed limits with the current ones', () => {
  it('$300 → $400: the current limit refuses 20 that went through, the new one 12: looser', async () => {
    const body = await preview({ maximumCents: '40000' });
    expect(body.examined).toBe(wentThrough.length + sizeDeclined.length + neither.length);
    // Disputed charges went through: the money left.
    expect(body.wentThrough).toEqual(figure(wentThrough));
    expect(body.wentThrough.count).toBe(30);
    expect(body.sizeDeclined).toEqual(figure(sizeDeclined));

    expect(body.current).toEqual({
      limits: { minimumCents: 0, maximumCents: 30_000 },
      wouldRefuse: figure(wentThrough.filter(outside(0, 30_000))),
      wouldAllow: figure(sizeDeclined.filter(inside(0, 30_000))),
    });
    expect(body.current.wouldRefuse.count).toBe(20);
    expect(body.proposed).toEqual({
      limits: { minimumCents: 0, maximumCents: 40_000 },
      wouldRefuse: figure(wentThrough.filter(outside(0, 40_000))),
      wouldAllow: figure(sizeDeclined.filter(inside(0, 40_000))),
    });
    expect(body.proposed.wouldRefuse.count).toBe(12);

    // The 8 that went through between $300.01 and $400, and the $350 declined for size.
    const between = (c: Charge) => cents(c) > 30_000 && cents(c) <= 40_000;
    expect(body.allowedOnlyByProposed).toEqual(
      figure([...wentThrough, ...sizeDeclined].filter(between)),
    );
    expect(body.allowedOnlyByProposed.count).toBe(9);
    expect(body.refusedOnlyByProposed).toEqual({ count: 0, sumCents: 0 });
    expect(body.effect).toBe('looser');
  });

  it('at the card’s current limits: the same, nothing let through or refused that was not', async () => {
    for (const query of [{}, { minimumCents: '0', maximumCents: '30000' }]) {
      const body = await preview(query);
      expect(body.proposed).toEqual(body.current);
      expect(body.current.wouldRefuse).toEqual(figure(wentThrough.filter(outside(0, 30_000))));
      // Declined for size although within today's limits: said apart, not as a change.
      expect(body.current.wouldAllow).toEqual(figure(sizeDeclined.filter(inside(0, 30_000))));
      expect(body.current.wouldAllow.count).toBe(2);
      expect(body.allowedOnlyByProposed).toEqual({ count: 0, sumCents: 0 });
      expect(body.refusedOnlyByProposed).toEqual({ count: 0, sumCents: 0 });
      expect(body.effect).toBe('same');
    }
  });

  it.each([
    // A lower maximum refuses what the current one lets through.
    { query: { maximumCents: '25000' }, effect: 'tighter', min: 0, max: 25_000 },
    // A minimum of $100 refuses the small ones; a $500 maximum lets more of the large through.
    {
      query: { minimumCents: '10000', maximumCents: '50000' },
      effect: 'mixed',
      min: 10_000,
      max: 50_000,
    },
    // Different limits that no charge of the window falls between: the same, for this card.
    {
      query: { minimumCents: '1000', maximumCents: '30000' },
      effect: 'same',
      min: 1_000,
      max: 30_000,
    },
  ] as const)('$query: $effect', async ({ query, effect, min, max }) => {
    const body = await preview(query);
    const all = [...wentThrough, ...sizeDeclined];
    const now = inside(0, 30_000);
    const then = inside(min, max);
    expect(body.refusedOnlyByProposed).toEqual(figure(all.filter((c) => now(c) && !then(c))));
    expect(body.allowedOnlyByProposed).toEqual(figure(all.filter((c) => !now(c) && then(c))));
    expect(body.proposed.wouldRefuse).toEqual(figure(wentThrough.filter(outside(min, max))));
    expect(body.effect).toBe(effect);
  });
});
