import { categoryGroupOf } from '@card-console/shared/category-groups';
import {
  emptyFigure,
  hasCard,
  isCardSpend,
  type MoneyBucket,
  type MoneySummary,
  moneyBucketOf,
  moneyBuckets,
  moneyStateOf,
} from '@card-console/shared/money-definition';
import type { UpstreamTransaction } from '@card-console/shared/upstream/transaction';
import type { DayAggregate } from '../../platform/day-aggregates/day-aggregate-store';
import type { OverviewTallies } from '../transaction-index';
import { addDays } from './local-days';

/**
 * How a transaction counts in the Overview: by the one definition of money
 * (`@card-console/shared/money-definition`, docs/money.md), nothing of its own.
 * - every row falls in one bucket of `money` (card spend, refunds, other payments, transfers
 *   in, released, declined (attempted), returned), its pending part apart;
 * - the breakdowns by ISO 18245 category group, merchant and card are of card spend only
 *   (`isCardSpend`: card charges less refunds, settled, pending and disputed), so they add up
 *   to the card spend figure and a payment without a card is never a "No merchant category" bar;
 * - every transaction is counted in `count`, whatever its status;
 * - declines are the `declined` card transactions, by reason; their rate is over card
 *   transactions (what a card's holder saw refused).
 */
const emptyMoney = (): MoneySummary =>
  Object.fromEntries(moneyBuckets.map((b) => [b, emptyFigure()])) as MoneySummary;

/** A decline the service gave no reason for. */
export const NO_REASON = 'No reason given';

/**
 * When a day stops being walked again. Transactions can still appear with an earlier date
 * for a while after it (authorisations posted late), so a day is final only once it ended
 * at least `SETTLING_DAYS` days before today (in the person's zone) AND none of its
 * transactions is pending. Today, the settling window, days with pending transactions and
 * days never computed are walked again on the next request; final days never are.
 */
export const SETTLING_DAYS = 3;

export function isFinal(day: DayAggregate, today: string): boolean {
  return day.pendingCount === 0 && day.day < addDays(today, -SETTLING_DAYS);
}

export function emptyDay(day: string): DayAggregate {
  return {
    day,
    final: false,
    walkedAt: 0,
    money: emptyMoney(),
    count: 0,
    pendingCount: 0,
    cardCount: 0,
    declines: 0,
    // No prototype: a merchant named "__proto__" is just a key.
    declineReasons: Object.create(null),
    categories: Object.create(null),
    merchants: Object.create(null),
    cards: Object.create(null),
  };
}

/** Adds `cents` of `count` debits to `key`'s line of a tally. */
export function tallyInto(
  into: Record<string, [number, number]>,
  key: string,
  cents: number,
  count = 1,
) {
  const known = into[key];
  if (known) {
    known[0] += cents;
    known[1] += count;
  } else into[key] = [cents, count];
}

export function addTransaction(into: DayAggregate, t: UpstreamTransaction): void {
  into.count += 1;
  const pending = moneyStateOf[t.status] === 'pending';
  if (pending) into.pendingCount += 1;
  if (hasCard(t)) into.cardCount += 1;
  if (t.status === 'declined' && hasCard(t)) {
    into.declines += 1;
    const reason = t.declineReason?.trim() || NO_REASON;
    into.declineReasons[reason] = (into.declineReasons[reason] ?? 0) + 1;
  }
  addFigure(into.money, moneyBucketOf(t), {
    count: 1,
    cents: t.amountCents,
    pendingCount: pending ? 1 : 0,
    pendingCents: pending ? t.amountCents : 0,
  });
  if (!isCardSpend(t)) return;
  // Net card spend: a charge adds its size, a refund takes its amount off.
  const cents = -t.amountCents;
  tallyInto(into.categories, categoryGroupOf(t.merchantData?.categoryCode), cents);
  if (t.merchantData) tallyInto(into.merchants, t.merchantData.description, cents);
  tallyInto(into.cards, t.cardId as string, cents);
}

function addFigure(
  into: MoneySummary,
  bucket: MoneyBucket,
  figure: { count: number; cents: number; pendingCount: number; pendingCents: number },
) {
  const known = into[bucket];
  known.count += figure.count;
  known.cents += figure.cents;
  known.pendingCount += figure.pendingCount;
  known.pendingCents += figure.pendingCents;
}

/** Adds `day`'s sums and counts into `into`, not its breakdowns. */
export function mergeTotals(
  into: DayAggregate,
  day: Pick<DayAggregate, 'money' | 'count' | 'pendingCount' | 'cardCount' | 'declines'>,
): void {
  for (const bucket of moneyBuckets) addFigure(into.money, bucket, day.money[bucket]);
  into.count += day.count;
  into.pendingCount += day.pendingCount;
  into.cardCount += day.cardCount;
  into.declines += day.declines;
}

/** Adds `day` into `into` (both already for the same span of days or sub accounts). */
export function mergeDay(into: DayAggregate, day: DayAggregate): void {
  mergeTotals(into, day);
  for (const reason in day.declineReasons) {
    into.declineReasons[reason] =
      (into.declineReasons[reason] ?? 0) + (day.declineReasons[reason] as number);
  }
  mergeTally(into.categories, day.categories);
  mergeTally(into.merchants, day.merchants);
  mergeTally(into.cards, day.cards);
}

function mergeTally(
  into: Record<string, [number, number]>,
  from: Record<string, [number, number]>,
) {
  // for…in over objects without a prototype (`emptyDay`, the stores): own keys only.
  for (const key in from) {
    const [cents, n] = from[key] as [number, number];
    tallyInto(into, key, cents, n);
  }
}

/**
 * The days of `subAccountIds` as the index tallied them (`overviewTallies`, bucket k being
 * `days[k]`), counted as `addTransaction` counts a walked row: the index reads the same
 * definition of money (`moneyBucketSql`, `cardSpendSql`), the same reasons, groups, merchants
 * and cards.
 */
export function daysFromTallies(
  tallies: OverviewTallies,
  subAccountIds: readonly string[],
  days: readonly string[],
): Map<string, DayAggregate>[] {
  const bySub = new Map(subAccountIds.map((id) => [id, new Map<string, DayAggregate>()]));
  const dayOf = (line: { subAccountId: string; bucket: number }) => {
    const known = bySub.get(line.subAccountId);
    const day = days[line.bucket];
    if (!known || day === undefined) return undefined;
    let aggregate = known.get(day);
    if (!aggregate) {
      aggregate = emptyDay(day);
      known.set(day, aggregate);
    }
    return aggregate;
  };
  for (const line of tallies.totals) {
    const into = dayOf(line);
    if (!into) continue;
    into.count += line.count;
    into.pendingCount += line.pendingCount;
    into.cardCount += line.cardCount;
    into.declines += line.declines;
  }
  for (const line of tallies.money) {
    const into = dayOf(line);
    if (into) addFigure(into.money, line.kind, line);
  }
  for (const line of tallies.declineReasons) {
    const into = dayOf(line);
    if (!into) continue;
    const reason = line.key?.trim() || NO_REASON;
    into.declineReasons[reason] = (into.declineReasons[reason] ?? 0) + line.count;
  }
  const tally = (
    lines: OverviewTallies['merchants'],
    pick: (into: DayAggregate) => Record<string, [number, number]>,
    keyOf: (key: string | null) => string | undefined,
  ) => {
    for (const line of lines) {
      const into = dayOf(line);
      const key = keyOf(line.key);
      if (into && key !== undefined) tallyInto(pick(into), key, line.cents, line.count);
    }
  };
  tally(
    tallies.categories,
    (d) => d.categories,
    (code) => categoryGroupOf(code ?? undefined),
  );
  tally(
    tallies.merchants,
    (d) => d.merchants,
    (name) => name ?? undefined,
  );
  tally(
    tallies.cards,
    (d) => d.cards,
    (card) => card ?? undefined,
  );
  return [...bySub.values()];
}
