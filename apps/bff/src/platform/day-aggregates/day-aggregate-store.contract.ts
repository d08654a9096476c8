// One behaviour suite for every DayAggregateStore implementation.
import { moneyBuckets } from '@card-console/shared/money-definition';
import { describe, expect, it } from 'vitest';
import type { DayAggregate, DayAggregateStore } from './day-aggregate-store';

/** A day whose card spend is `cents` (its card bucket's cents, as stored: signed). */
export function aggregate(day: string, cents = 100, final = true): DayAggregate {
  const money = Object.fromEntries(
    moneyBuckets.map((b) => [b, { count: 0, cents: 0, pendingCount: 0, pendingCents: 0 }]),
  ) as DayAggregate['money'];
  money.card = { count: 2, cents, pendingCount: final ? 0 : 1, pendingCents: final ? 0 : 5 };
  money.transfer = { count: 1, cents: 7, pendingCount: 0, pendingCents: 0 };
  return {
    day,
    final,
    walkedAt: Date.UTC(2026, 2, 9, 12),
    money,
    count: 3,
    pendingCount: final ? 0 : 1,
    cardCount: 2,
    declines: 1,
    declineReasons: { 'Insufficient funds': 1 },
    categories: { retail: [cents, 2] },
    merchants: { 'Corner Shop': [cents, 2] },
    cards: { card_1: [cents, 2] },
  };
}

/** `make` gives a fresh, empty store each time (its own key prefix for a shared engine). */
export function dayAggregateStoreContract(name: string, make: () => Promise<DayAggregateStore>) {
  describe(`${name} (day aggregate store contract)`, () => {
    it('gives back exactly what was put, for the days asked that it knows', async () => {
      const store = await make();
      const days = [aggregate('2026-03-07'), aggregate('2026-03-08', 250, false)];
      await store.put('sub_1', 'America/New_York', days);
      const got = await store.get('sub_1', 'America/New_York', [
        '2026-03-06',
        '2026-03-07',
        '2026-03-08',
      ]);
      expect([...got.keys()].sort()).toEqual(['2026-03-07', '2026-03-08']);
      expect(got.get('2026-03-07')).toEqual(days[0]);
      expect(got.get('2026-03-08')).toEqual(days[1]);
    });

    it('keeps sub accounts and time zones apart', async () => {
      const store = await make();
      await store.put('sub_1', 'UTC', [aggregate('2026-01-01', 1)]);
      await store.put('sub_1', 'Europe/Paris', [aggregate('2026-01-01', 2)]);
      await store.put('sub_2', 'UTC', [aggregate('2026-01-01', 3)]);
      const cents = async (sub: string, tz: string) =>
        (await store.get(sub, tz, ['2026-01-01'])).get('2026-01-01')?.money.card.cents;
      expect(await cents('sub_1', 'UTC')).toBe(1);
      expect(await cents('sub_1', 'Europe/Paris')).toBe(2);
      expect(await cents('sub_2', 'UTC')).toBe(3);
      expect((await store.get('sub_3', 'UTC', ['2026-01-01'])).size).toBe(0);
    });

    it('a day put again replaces the one before', async () => {
      const store = await make();
      await store.put('sub_1', 'UTC', [aggregate('2026-01-01', 1, false)]);
      await store.put('sub_1', 'UTC', [aggregate('2026-01-01', 9, true)]);
      const day = (await store.get('sub_1', 'UTC', ['2026-01-01'])).get('2026-01-01');
      expect(day).toMatchObject({ money: { card: { cents: 9 } }, final: true });
    });

    it('what the caller changes after a put never reaches the store', async () => {
      const store = await make();
      const put = aggregate('2026-01-01', 1);
      await store.put('sub_1', 'UTC', [put]);
      put.money.card.cents = 999;
      put.declineReasons['Insufficient funds'] = 9;
      put.merchants['Corner Shop'] = [999, 9];
      (put.cards.card_1 as [number, number])[0] = 999;
      const again = (await store.get('sub_1', 'UTC', ['2026-01-01'])).get('2026-01-01');
      expect(again).toEqual(aggregate('2026-01-01', 1));
    });
  });
}
