// A living demo: card transactions keep arriving after the simulator starts, a few a minute in
// working hours and a tenth of that outside them, declines and refunds among them, so alerts can
// fire and lists have something new. Every minute brings at least one decline, at any hour (a
// card's attempt refused: a subscription's renewal, a retried tap), so a "declined" rule set in
// the demo fires within minutes whenever someone tries it (`DECLINE_WINDOW`). What arrives in a minute is decided by the seed and that
// minute alone (not by when the process started): the same seed and clock bring the same cards,
// merchants, amounts and statuses. Each is added through the simulator's own `addTransaction`
// (dated when it is added, within `everyMs` of its minute), at a card and merchant the card has
// bought from before. Tests freeze it by not starting it, or by a `now` they move.

import { mulberry32, pick, type Rng } from '../data/prng';
import { declineReasons } from '../data/word-lists';
import type { CardService } from '../service';
import type { NewTransaction } from '../testing/add-transaction';

export interface LiveActivityOptions {
  seed: number;
  /** Transactions a minute, on average, in working hours (a tenth of it outside); 0: none. */
  perMinute: number;
  /** Working hours, Monday to Friday, local to `timeZone`: from `from` o'clock until `to`. */
  hours: { from: number; to: number };
  timeZone: string;
  now: () => number;
  /** How often what is due is added. */
  everyMs?: number;
}

/** A card's purchase to repeat: its card, sub account and merchant, and about what it cost. */
export interface Purchase {
  subAccountId: string;
  cardId: string;
  description: string;
  merchantDescription: string;
  categoryCode: string;
  amountCents: number;
}

const MINUTE_MS = 60_000;
/** Of the transactions that arrive: declined, then refunded; the rest go through. */
const DECLINED_SHARE = 0.15;
const REFUND_SHARE = 0.1;
/**
 * Every minute has a decline before `to` (ms from the minute's start): one of a minute that drew
 * none by then is due in this window, so two declines are never more than 90 s apart (one at a
 * minute's first second, the next minute's at its 30th).
 */
export const DECLINE_WINDOW = { from: 10_000, to: 30_000 } as const;

/** Whether `at` falls in working hours (weekdays, local) in the zone. */
export function inWorkingHours(
  at: number,
  hours: LiveActivityOptions['hours'],
  timeZone: string,
): boolean {
  const parts = partsFormat(timeZone).formatToParts(at);
  const weekday = parts.find((p) => p.type === 'weekday')?.value ?? '';
  const hour = Number(parts.find((p) => p.type === 'hour')?.value ?? '0') % 24;
  return !['Sat', 'Sun'].includes(weekday) && hour >= hours.from && hour < hours.to;
}

const formats = new Map<string, Intl.DateTimeFormat>();
function partsFormat(timeZone: string): Intl.DateTimeFormat {
  let format = formats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      weekday: 'short',
      hour: '2-digit',
      hourCycle: 'h23',
    });
    formats.set(timeZone, format);
  }
  return format;
}

/** How many arrive, for a mean of `mean` (Knuth's Poisson draw). */
function arrivals(rng: Rng, mean: number): number {
  const limit = Math.exp(-mean);
  let count = 0;
  let product = rng();
  while (product > limit && count < 100) {
    count += 1;
    product *= rng();
  }
  return count;
}

/**
 * What arrives in minute `minute` (Unix ms ÷ 60,000, floored), in order: each a transaction to
 * add and the millisecond it is due. Pure: the seed, the minute and the purchases decide it.
 */
export function minuteOfActivity(
  minute: number,
  purchases: readonly Purchase[],
  o: Pick<LiveActivityOptions, 'seed' | 'perMinute' | 'hours' | 'timeZone'>,
): { at: number; transaction: NewTransaction }[] {
  if (o.perMinute <= 0 || purchases.length === 0) return [];
  const start = minute * MINUTE_MS;
  const rng = mulberry32((o.seed ^ Math.imul(minute, 0x9e37_79b1)) >>> 0);
  const mean = inWorkingHours(start, o.hours, o.timeZone) ? o.perMinute : o.perMinute / 10;
  const due: { at: number; transaction: NewTransaction }[] = [];
  /** A purchase a card has made before, again, for about what it paid: its fields and cents. */
  const again = () => {
    const like = pick(rng, purchases);
    const cents = Math.max(100, Math.round(Math.abs(like.amountCents) * (0.5 + rng())));
    const { amountCents: _, ...merchant } = like;
    return { merchant, cents };
  };
  const declined = (merchant: Omit<Purchase, 'amountCents'>, cents: number): NewTransaction => ({
    ...merchant,
    amountCents: -cents,
    status: 'declined',
    declineReason: pick(rng, declineReasons),
  });
  for (let i = arrivals(rng, mean); i > 0; i--) {
    const at = start + Math.floor(rng() * MINUTE_MS);
    const { merchant, cents } = again();
    const roll = rng();
    const transaction: NewTransaction =
      roll < DECLINED_SHARE
        ? declined(merchant, cents)
        : roll < DECLINED_SHARE + REFUND_SHARE
          ? { ...merchant, amountCents: Math.max(100, Math.round(cents / 3)), status: 'refund' }
          : { ...merchant, amountCents: -cents, status: 'settled' };
    due.push({ at, transaction });
  }
  const { from, to } = DECLINE_WINDOW;
  if (!due.some((d) => d.transaction.status === 'declined' && d.at < start + to)) {
    const at = start + from + Math.floor(rng() * (to - from));
    const { merchant, cents } = again();
    due.push({ at, transaction: declined(merchant, cents) });
  }
  return due.sort((a, b) => a.at - b.at);
}

/** The card purchases of the simulator's data, the ones live activity repeats. */
export function purchasesOf(sim: Pick<CardService, 'data'>): Purchase[] {
  const purchases: Purchase[] = [];
  for (const sub of sim.data.subAccounts()) {
    for (const t of sim.data.transactions(sub.id)) {
      if (!t.cardId || !t.merchantData || t.status !== 'settled' || t.amountCents >= 0) continue;
      purchases.push({
        subAccountId: sub.id,
        cardId: t.cardId,
        description: t.description,
        merchantDescription: t.merchantData.description,
        categoryCode: t.merchantData.categoryCode,
        amountCents: t.amountCents,
      });
    }
  }
  return purchases;
}

/**
 * Adds what comes due, every `everyMs` (5 s), from the moment it starts: nothing before it (the
 * generated history is the past). Stops with `stop()` or the simulator's close.
 */
export function startLiveActivity(
  sim: Pick<CardService, 'data' | 'testing'>,
  o: LiveActivityOptions,
): { stop(): void } {
  if (o.perMinute <= 0) return { stop() {} };
  const purchases = purchasesOf(sim);
  let addedUpTo = o.now();
  const tick = () => {
    const now = o.now();
    for (let minute = Math.floor(addedUpTo / MINUTE_MS); minute * MINUTE_MS <= now; minute++) {
      for (const { at, transaction } of minuteOfActivity(minute, purchases, o)) {
        if (at <= addedUpTo || at > now) continue;
        try {
          sim.testing.addTransaction(transaction);
        } catch {
          // One the simulator refuses (its card gone, say) is left out: the timer never throws,
          // which would end the demo's process.
        }
      }
    }
    addedUpTo = now;
  };
  const timer = setInterval(tick, o.everyMs ?? 5_000);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
