// The limit impact preview through the real BFF over HTTP against the simulator: its numbers
// against a plain count over the simulator's own data for random cards and limits, its
// refusals, and one walk for previews of a card asked for at the same time.

import type { Transaction } from '@card-console/card-service-sim';
import { apiErrorBodySchema } from '@card-console/shared/api/error';
import { type LimitImpact, limitImpactSchema } from '@card-console/shared/api/overview';
import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestSession } from '../../test/harness';

const seed = Number(process.env.FC_SEED ?? Date.now() % 2 ** 31);
console.log(`limit impact: fast-check seed ${seed} (FC_SEED=${seed} to replay)`);

const SIZE_LIMIT = 'Exceeds transaction size limit';

describe('GET /api/cards/:id/limit-impact', () => {
  let t: TestApp;
  let admin: TestSession;
  let finance: TestSession;
  /** Every transaction of the simulator, once. */
  let all: Transaction[];

  beforeAll(async () => {
    // Few cards and small pages: a card's 90 days are many pages, split into date ranges.
    t = await startTestApp({
      sim: {
        subAccounts: 3,
        cards: 9,
        transactions: 6_000,
        months: 6,
        pageSize: { transactions: 7 },
        rateLimit: false,
      },
    });
    admin = await t.signIn('admin');
    finance = await t.signIn('finance');
    all = t.sim.data.subAccounts().flatMap((s) => t.sim.data.transactions(s.id));
    // Two in three declines say the size limit (the simulator's own reasons make it one in six).
    const declined = all.filter((x) => x.status === 'declined');
    declined.forEach((x, i) => {
      if (i % 3 !== 2) t.sim.testing.setTransactionText(x.id, { declineReason: SIZE_LIMIT });
    });
    all = t.sim.data.subAccounts().flatMap((s) => t.sim.data.transactions(s.id));
  });
  afterAll(async () => t.close());
  afterEach(() => t.sim.stats.reset());

  const preview = (cardId: string, query: Record<string, string> = {}, who = admin) =>
    t.request.get(`/api/cards/${cardId}/limit-impact`).query(query).set(who.headers());

  /**
   * The card's rows in [from, to], counted the plain way, by docs/money.md's table: a charge
   * went through when it is a card debit settled, pending, disputed or a (negative) refund.
   */
  function bruteForce(
    cardId: string,
    from: number,
    to: number,
    limits: { min: number; max: number | undefined },
    current: { min: number; max: number | undefined },
  ) {
    const rows = all.filter((x) => {
      const at = Date.parse(x.date);
      return x.cardId === cardId && at >= from && at <= to;
    });
    const allowedBy =
      ({ min, max }: { min: number; max: number | undefined }) =>
      (x: Transaction) =>
        -x.amountCents >= min && (max === undefined || -x.amountCents <= max);
    const went = rows.filter(
      (x) => ['settled', 'pending', 'dispute', 'refund'].includes(x.status) && x.amountCents < 0,
    );
    const sized = rows.filter(
      (x) => x.status === 'declined' && x.declineReason === SIZE_LIMIT && x.amountCents < 0,
    );
    const sum = (xs: Transaction[]) => ({
      count: xs.length,
      sumCents: xs.reduce((n, x) => n - x.amountCents, 0),
    });
    const outcome = (l: { min: number; max: number | undefined }) => ({
      limits:
        l.max === undefined
          ? { minimumCents: l.min }
          : { minimumCents: l.min, maximumCents: l.max },
      wouldRefuse: sum(went.filter((x) => !allowedBy(l)(x))),
      wouldAllow: sum(sized.filter(allowedBy(l))),
    });
    const both = [...went, ...sized];
    const refusedOnly = both.filter((x) => allowedBy(current)(x) && !allowedBy(limits)(x));
    const allowedOnly = both.filter((x) => !allowedBy(current)(x) && allowedBy(limits)(x));
    return {
      examined: rows.length,
      wentThrough: sum(went),
      sizeDeclined: sum(sized),
      current: outcome(current),
      proposed: outcome(limits),
      refusedOnlyByProposed: sum(refusedOnly),
      allowedOnlyByProposed: sum(allowedOnly),
      effect: refusedOnly.length
        ? allowedOnly.length
          ? 'mixed'
          : 'tighter'
        : allowedOnly.length
          ? 'looser'
          : 'same',
      subAccountIds: [...new Set(rows.map((x) => x.subAccountId))],
    };
  }

  const currentLimits = (cardId: string) => {
    const size = t.sim.data.card(cardId)?.spendingConstraint.spendingRule.transactionSizeLimit;
    return { min: size?.minimum.amountCents ?? 0, max: size?.maximum.amountCents };
  };

  it('matches a plain count over the simulator’s data for random cards and limits', async () => {
    const cards = t.sim.data.cards();
    const cardAndLimits = fc.constantFrom(...cards).chain((card) => {
      // Amounts the card really has, and one cent either side: the inclusive edges.
      const amounts = all
        .filter((x) => x.cardId === card.id && x.amountCents < 0)
        .flatMap((x) => [-x.amountCents - 1, -x.amountCents, -x.amountCents + 1]);
      const cents = fc.oneof(
        fc.integer({ min: 0, max: 300_000 }),
        fc.constantFrom(...amounts),
        fc.constant(0),
      );
      return fc.record({
        card: fc.constant(card),
        minimumCents: fc.option(cents, { nil: undefined }),
        maximumCents: fc.option(cents, { nil: undefined }),
      });
    });
    let previews = 0;
    let refusedLimits = 0;
    let seenAllow = 0;
    let seenRefuse = 0;
    const effects = new Set<string>();
    await fc.assert(
      fc.asyncProperty(cardAndLimits, async ({ card, minimumCents, maximumCents }) => {
        const query: Record<string, string> = {};
        if (minimumCents !== undefined) query.minimumCents = String(minimumCents);
        if (maximumCents !== undefined) query.maximumCents = String(maximumCents);
        const res = await preview(card.id, query);
        const current = currentLimits(card.id);
        const min = minimumCents ?? current.min;
        const max = maximumCents ?? current.max;
        if (max !== undefined && min > max) {
          expect(res.status, JSON.stringify(res.body)).toBe(400);
          expect(apiErrorBodySchema.parse(res.body).code).toBe('invalid_query');
          refusedLimits += 1;
          return;
        }
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        const body: LimitImpact = limitImpactSchema.parse(res.body);
        expect(body.to - body.from).toBe(90 * 86_400_000);
        const expected = bruteForce(card.id, body.from, body.to, { min, max }, current);
        // Every figure, the limits each side was judged by, and the comparison.
        expect(body).toEqual({ from: body.from, to: body.to, ...expected });
        previews += 1;
        if (body.proposed.wouldAllow.count) seenAllow += 1;
        if (body.proposed.wouldRefuse.count) seenRefuse += 1;
        effects.add(body.effect);
      }),
      { seed, numRuns: 40 },
    );
    // The property ran on answers with something in them, not only on refusals or zeros.
    expect(previews).toBeGreaterThan(10);
    expect(seenAllow).toBeGreaterThan(0);
    expect(seenRefuse).toBeGreaterThan(0);
    expect(effects.size).toBeGreaterThan(1);
    expect(previews + refusedLimits).toBe(40);
  });

  it('both limits are inclusive: an amount equal to one passes, a cent past it is refused', async () => {
    const since = Date.now() - 80 * 86_400_000;
    const row = all.find(
      (x) => x.cardId && x.status === 'settled' && x.amountCents < 0 && Date.parse(x.date) > since,
    );
    if (!row?.cardId) throw new Error('no settled debit');
    const cents = -row.amountCents;
    const at = async (query: Record<string, string>) => {
      const res = await preview(row.cardId ?? '', query);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const body = limitImpactSchema.parse(res.body);
      const current = currentLimits(row.cardId ?? '');
      const expected = bruteForce(
        row.cardId ?? '',
        body.from,
        body.to,
        {
          min: query.minimumCents === undefined ? current.min : Number(query.minimumCents),
          max: query.maximumCents === undefined ? current.max : Number(query.maximumCents),
        },
        current,
      );
      expect(body.proposed.wouldRefuse).toEqual(expected.proposed.wouldRefuse);
      return body.proposed.wouldRefuse.count;
    };
    const sameAmount = all.filter(
      (x) =>
        x.cardId === row.cardId &&
        ['settled', 'pending', 'dispute', 'refund'].includes(x.status) &&
        x.amountCents === row.amountCents,
    ).length;
    const huge = String(10 ** 9);
    expect(
      (await at({ minimumCents: String(cents + 1), maximumCents: huge })) -
        (await at({ minimumCents: String(cents), maximumCents: huge })),
    ).toBe(sameAmount);
    expect(
      (await at({ minimumCents: '0', maximumCents: String(cents - 1) })) -
        (await at({ minimumCents: '0', maximumCents: String(cents) })),
    ).toBe(sameAmount);
  });

  it('walks more than one date range, and reads every page once', async () => {
    const card = t.sim.data.cards()[0];
    if (!card) throw new Error('no card');
    const res = await preview(card.id);
    expect(res.status).toBe(200);
    const body = limitImpactSchema.parse(res.body);
    // Several pages of 7: the window was split (each range re-reads at most its first page).
    const pages = t.sim.stats.count('GET /transaction');
    const subAccounts = t.sim.data.subAccounts().length;
    expect(body.examined).toBeGreaterThan(7 * 10);
    expect(pages).toBeGreaterThan(body.examined / 7);
    expect(pages).toBeLessThan(body.examined / 7 + subAccounts + 20);
  });

  it('with no limits given, the proposed limits are the card’s current ones: the same', async () => {
    const card = t.sim.data.cards()[1];
    if (!card) throw new Error('no card');
    const res = await preview(card.id);
    expect(res.status).toBe(200);
    const body = limitImpactSchema.parse(res.body);
    const current = currentLimits(card.id);
    expect(body.proposed.limits).toEqual({ minimumCents: current.min, maximumCents: current.max });
    expect(body.current).toEqual(body.proposed);
    expect(body.current).toEqual(bruteForce(card.id, body.from, body.to, current, current).current);
    expect(body.effect).toBe('same');
  });

  it('previews of one card asked for at once share one walk, whatever their limits', async () => {
    const card = t.sim.data.cards()[2];
    if (!card) throw new Error('no card');
    expect((await preview(card.id, { maximumCents: '5000' })).status).toBe(200);
    const oneWalk = t.sim.stats.count('GET /transaction');
    expect(oneWalk).toBeGreaterThan(3);
    t.sim.stats.reset();
    const queries: Record<string, string>[] = [
      { maximumCents: '5000' },
      { maximumCents: '5000' },
      { maximumCents: '5000' },
      { minimumCents: '100' },
      {},
    ];
    const answers = await Promise.all(queries.map((q) => preview(card.id, q)));
    expect(answers.map((r) => r.status)).toEqual(queries.map(() => 200));
    expect(t.sim.stats.count('GET /transaction')).toBe(oneWalk);
    // The identical ones got the same numbers.
    expect(answers[1]?.body).toEqual(answers[0]?.body);
    expect(answers[2]?.body).toEqual(answers[0]?.body);
    // Once done, the next preview walks again (nothing kept that could be stale).
    t.sim.stats.reset();
    expect((await preview(card.id, { maximumCents: '5000' })).status).toBe(200);
    expect(t.sim.stats.count('GET /transaction')).toBe(oneWalk);
  });

  it.each([
    [{ minimumCents: '5000', maximumCents: '4999' }, /minimum must not be above the maximum/],
    [{ minimumCents: '-1' }, /minimumCents/],
    [{ maximumCents: '12.5' }, /maximumCents/],
    [{ maximumCents: '' }, /maximumCents: a whole number of cents/],
    [{ maximumCents: '1e4' }, /maximumCents: a whole number of cents/],
    [{ minimumCents: ' 12' }, /minimumCents/],
    [{ minimumCents: 'ten' }, /minimumCents/],
    [{ maximumCents: '100000000001' }, /maximumCents/],
    [{ limit: '5' }, /limit|unrecognized/i],
  ])('%o is a 400 with its reason, and reaches no transaction list', async (query, reason) => {
    const card = t.sim.data.cards()[0];
    const res = await preview(card?.id ?? '', query);
    expect(res.status).toBe(400);
    const body = apiErrorBodySchema.parse(res.body);
    expect(body.code).toBe('invalid_query');
    expect(body.detail).toMatch(reason);
    expect(t.sim.stats.count('GET /transaction')).toBe(0);
  });

  it('a repeated limit is a 400', async () => {
    const card = t.sim.data.cards()[0];
    const res = await t.request
      .get(`/api/cards/${card?.id}/limit-impact?maximumCents=1&maximumCents=2`)
      .set(admin.headers());
    expect(res.status).toBe(400);
  });

  it('a minimum above the card’s current maximum (none given) is a 400 naming it', async () => {
    const card = t.sim.data.cards()[0];
    if (!card) throw new Error('no card');
    const { max } = currentLimits(card.id);
    const res = await preview(card.id, { minimumCents: String((max ?? 0) + 1) });
    expect(res.status).toBe(400);
    expect(apiErrorBodySchema.parse(res.body).detail).toContain(`${max} cents`);
    expect(t.sim.stats.count('GET /transaction')).toBe(0);
  });

  it('an unknown card is a 404; an ill-formed id never reaches the service', async () => {
    const missing = await preview('card_nosuchcard0', { maximumCents: '100' });
    expect(missing.status).toBe(404);
    expect(apiErrorBodySchema.parse(missing.body).code).toBe('not_found');
    expect(t.sim.stats.count('GET /transaction')).toBe(0);
    // `..` is no path segment upstream, however escaped.
    const bad = await preview('%2E%2E');
    expect(bad.status).toBe(400);
  });

  it('finance may not preview (403), and reaches nothing upstream', async () => {
    const card = t.sim.data.cards()[0];
    const res = await preview(card?.id ?? '', { maximumCents: '100' }, finance);
    expect(res.status).toBe(403);
    expect(apiErrorBodySchema.parse(res.body).code).toBe('forbidden');
    expect(t.sim.stats.total()).toBe(0);
  });
});
