// The preview's walk of a card's rows across sub accounts and date ranges, against a service
// whose rows crowd onto few milliseconds (many share one, so range bounds fall on them) and
// that keeps finer dates than whole milliseconds: every row of the window once, none twice.
import type { UpstreamTransaction } from '@card-console/shared/upstream/transaction';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { TransactionListParams, UpstreamClient } from '../../upstream/client';
import { walkCard } from './limit-impact-service';

const seed = Number(process.env.FC_SEED ?? Date.now() % 2 ** 31);
console.log(`limit impact walk: fast-check seed ${seed} (FC_SEED=${seed} to replay)`);

interface Row {
  sub: number;
  card: number;
  /** Microseconds: the service's own resolution. */
  atMicros: number;
  cents: number;
}

/**
 * A card service of these rows: newest first, offset cursors, inclusive bounds in ms compared
 * with its microsecond dates (a row at b ms + 500 µs is after `to_date` = b).
 */
function fakeService(rows: Row[], subAccounts: number, pageSize: number) {
  const byDate = [...rows].sort((a, b) => b.atMicros - a.atMicros);
  const listed = (q: TransactionListParams) =>
    byDate.filter(
      (r) =>
        `sub_${r.sub}` === q.subAccountId &&
        `card_${r.card}` === q.cardId &&
        (q.fromDate === undefined || r.atMicros >= q.fromDate * 1000) &&
        (q.toDate === undefined || r.atMicros <= q.toDate * 1000),
    );
  const toWire = (r: Row): UpstreamTransaction => ({
    id: `txn_${byDate.indexOf(r)}`,
    date: new Date(Math.floor(r.atMicros / 1000)).toISOString(),
    description: 'Merchant',
    amountCents: -r.cents,
    status: 'settled',
    referenceNumber: '1',
    cardId: `card_${r.card}`,
  });
  const upstream: Pick<UpstreamClient, 'listSubAccounts' | 'listTransactionsDeferred'> = {
    async listSubAccounts() {
      const items = Array.from({ length: subAccounts }, (_, i) => ({
        id: `sub_${i}`,
        name: `S${i}`,
      }));
      return { items, metadata: { count: items.length } };
    },
    async listTransactionsDeferred(_ctx, q) {
      const all = listed(q);
      const at = Number(q.cursor ?? 0);
      const page = all.slice(at, at + pageSize).map(toWire);
      const more = at + pageSize < all.length;
      return {
        metadata: more
          ? { count: page.length, nextCursor: String(at + pageSize) }
          : { count: page.length },
        items: () => page,
      };
    },
  };
  return upstream as UpstreamClient;
}

describe('the preview’s walk', () => {
  it('reads every row of the card in the window once, whatever the bounds fall on', async () => {
    const row = fc.record({
      sub: fc.integer({ min: 0, max: 2 }),
      card: fc.integer({ min: 0, max: 1 }),
      // 2,000 ms, so many rows share a millisecond; half of them on a whole millisecond.
      atMicros: fc.oneof(
        fc.integer({ min: 0, max: 2_000 }).map((ms) => ms * 1000),
        fc.integer({ min: 0, max: 2_000_000 }),
      ),
      cents: fc.integer({ min: 1, max: 100_000 }),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.array(row, { minLength: 50, maxLength: 600, size: 'max' }),
        fc.integer({ min: 1, max: 9 }),
        fc.integer({ min: 0, max: 1_000 }),
        fc.integer({ min: 1_000, max: 2_000 }),
        async (rows, pageSize, from, to) => {
          const upstream = fakeService(rows, 3, pageSize);
          const window = await walkCard(upstream, { requestId: 'test' }, 'card_0', from, to);
          // The window as the service reads its bounds (to the microsecond).
          const expected = rows.filter(
            (r) => r.card === 0 && r.atMicros >= from * 1000 && r.atMicros <= to * 1000,
          );
          expect(window.examined).toBe(expected.length);
          expect([...window.passed].sort((a, b) => a - b)).toEqual(
            expected.map((r) => r.cents).sort((a, b) => a - b),
          );
          const subs = new Set(expected.map((r) => `sub_${r.sub}`));
          expect(new Set(window.subAccountIds)).toEqual(subs);
        },
      ),
      { seed, numRuns: 150 },
    );
  });
});
