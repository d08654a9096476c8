import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  cardSpendCount,
  type MoneyRow,
  moneyBucketOf,
  moneyBucketOfPartsSql,
  moneyBucketSql,
  netCardSpendCents,
  netCardSpendPendingCents,
  postedCents,
  postedCount,
  postedSql,
  postsToBooks,
  statusesOf,
  summarize,
} from './money-definition';
import { transactionStatuses } from './upstream/enums';

// The table of docs/money.md written out again by hand, row by row: status × card × sign.
// The definition must give exactly this.
const table: [string, boolean, 'debit' | 'credit', string, boolean][] = [
  // status, card, sign, bucket, in the books
  ['settled', true, 'debit', 'card', true],
  ['settled', true, 'credit', 'refund', true],
  ['settled', false, 'debit', 'payment', true],
  ['settled', false, 'credit', 'transfer', true],
  ['dispute', true, 'debit', 'card', true],
  ['refund', true, 'credit', 'refund', true],
  ['refund', false, 'credit', 'transfer', true],
  ['pending', true, 'debit', 'card', false],
  ['pending', true, 'credit', 'refund', false],
  ['pending', false, 'debit', 'payment', false],
  ['reversed', true, 'debit', 'released', false],
  ['declined', true, 'debit', 'attempted', false],
  ['canceled', true, 'debit', 'attempted', false],
  ['failed', false, 'credit', 'attempted', false],
  ['failed', false, 'debit', 'attempted', false],
  ['returned', false, 'debit', 'returned', false],
];

const row = (status: string, card: boolean, sign: 'debit' | 'credit'): MoneyRow => ({
  status: status as MoneyRow['status'],
  amountCents: sign === 'debit' ? -1234 : 1234,
  ...(card ? { cardId: 'card_1' } : {}),
});

describe('the money definition', () => {
  it.each(table)('%s, card %s, %s: %s, in the books %s', (status, card, sign, bucket, books) => {
    expect(moneyBucketOf(row(status, card, sign))).toBe(bucket);
    expect(postsToBooks(row(status, card, sign))).toBe(books);
  });

  it('lists the statuses of a state in the contract order, as a status filter asks', () => {
    expect(statusesOf(['posted', 'pending'])).toEqual(['pending', 'settled', 'refund', 'dispute']);
    expect(statusesOf(['attempted'])).toEqual(['canceled', 'failed', 'declined']);
    expect(statusesOf([])).toEqual([]);
  });

  it('reads an empty card id as no card', () => {
    expect(moneyBucketOf({ status: 'settled', amountCents: -5, cardId: '' })).toBe('payment');
    expect(moneyBucketOf({ status: 'settled', amountCents: -5, cardId: null })).toBe('payment');
  });

  it.each([
    ['over the columns', moneyBucketSql, 'card_id', 'amount_cents < 0'],
    ['over status, carded and debit', moneyBucketOfPartsSql, 'carded', 'debit'],
  ])(
    'says the same in SQL (%s) as in JavaScript for every status, card and sign',
    (_, caseSql, card, debit) => {
      // Evaluated by a tiny reader of the CASE expression's branches, in order.
      const branches = [...caseSql.matchAll(/WHEN (.+?) THEN '(\w+)'/g)].map((m) => ({
        when: m[1] as string,
        bucket: m[2] as string,
      }));
      const otherwise = /ELSE '(\w+)'/.exec(caseSql)?.[1];
      const holds = (when: string, r: MoneyRow): boolean =>
        when.split(' AND ').every((part) => {
          const statuses = /status IN \(([^)]*)\)/.exec(part);
          if (statuses) return (statuses[1] ?? '').includes(`'${r.status}'`);
          if (part.includes(card)) return r.cardId !== undefined;
          if (part === debit) return r.amountCents < 0;
          throw new Error(`unread: ${part}`);
        });
      for (const status of transactionStatuses)
        for (const hasCard of [true, false])
          for (const sign of ['debit', 'credit'] as const) {
            const r = row(status, hasCard, sign);
            const sql = branches.find((b) => holds(b.when, r))?.bucket ?? otherwise;
            expect(sql, `${status} ${hasCard} ${sign}`).toBe(moneyBucketOf(r));
            expect(holds(postedSql, r)).toBe(postsToBooks(r));
          }
    },
  );

  it('sums every row into exactly one bucket; posted and card spend as the table says', () => {
    const rows = fc.array(
      fc.record({
        status: fc.constantFrom(...transactionStatuses),
        amountCents: fc.integer({ min: -1_000_000, max: 1_000_000 }),
        card: fc.boolean(),
      }),
    );
    fc.assert(
      fc.property(rows, (list) => {
        const money = list.map(({ card, ...r }) => (card ? { ...r, cardId: 'c' } : r));
        const s = summarize(money);
        const counted = Object.values(s).reduce((n, f) => n + f.count, 0);
        expect(counted).toBe(list.length);
        const total = Object.values(s).reduce((n, f) => n + f.cents, 0);
        expect(total).toBe(list.reduce((n, r) => n + r.amountCents, 0));
        // By hand: posted = settled, refund, dispute; card spend = card rows that are
        // settled, refund, dispute or pending, negated.
        const posted = list
          .filter((r) => ['settled', 'refund', 'dispute'].includes(r.status))
          .reduce((n, r) => n + r.amountCents, 0);
        expect(postedCents(s)).toBe(posted);
        expect(postedCount(s)).toBe(
          list.filter((r) => ['settled', 'refund', 'dispute'].includes(r.status)).length,
        );
        const spend = list
          .filter((r) => r.card && ['settled', 'refund', 'dispute', 'pending'].includes(r.status))
          .reduce((n, r) => n - r.amountCents, 0);
        // (0 - 0 is 0, never -0: a figure of nothing shows as $0.00.)
        expect(netCardSpendCents(s)).toBe(spend);
        const pendingSpend = list
          .filter((r) => r.card && r.status === 'pending')
          .reduce((n, r) => n - r.amountCents, 0);
        expect(netCardSpendPendingCents(s)).toBe(pendingSpend);
        expect(cardSpendCount(s)).toBe(
          list.filter(
            (r) => r.card && ['settled', 'refund', 'dispute', 'pending'].includes(r.status),
          ).length,
        );
      }),
    );
  });
});
