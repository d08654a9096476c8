import type { LimitImpact } from '@card-console/shared/api/insights';
import type { UpstreamCard } from '@card-console/shared/upstream/card';
import type { UpstreamTransaction } from '@card-console/shared/upstream/transaction';
import { AppError } from '../../http/app-error';
import type { Who } from '../../http/context';
import type { FeatureDeps } from '../../http/deps';
import type { CallContext, DeferredPage, UpstreamClient } from '../../upstream/client';
import { walkPages } from '../../upstream/walk-pages';
import { createRangePlanner, type DateRange } from '../transactions/date-ranges';

const DAY_MS = 86_400_000;
/** The window a preview looks at: the last 90 days, up to now. */
export const IMPACT_WINDOW_MS = 90 * DAY_MS;
/** Sub accounts looked in at once for the card's transactions. */
export const IMPACT_SUB_ACCOUNTS_AT_ONCE = 4;
/** Date ranges of one sub account walked at once (each its own cursor). */
export const IMPACT_WALKS = 4;
/** A range is sized to about this many pages. */
export const IMPACT_PAGES_PER_RANGE = 8;
/** Pages of the sub-account list read at most (25 a page: 10,000 sub accounts). */
const MAX_SUB_ACCOUNT_PAGES = 400;

/**
 * A decline for the card's transaction-size limit. The service names reasons in free text
 * (the simulator: "Exceeds transaction size limit"), so the words are matched, not the case.
 */
export function isSizeLimitDecline(reason: string | undefined): boolean {
  return reason !== undefined && /transaction size limit/i.test(reason);
}

/**
 * What a limit applies to. Only card debits are authorised against the size limit:
 * - `passed`: a pending or settled debit (it went through);
 * - `sizeDeclined`: a debit declined for the size limit;
 * anything else (credits and refunds, which the holder does not authorise; canceled,
 * reversed, disputed or otherwise declined rows) is neither.
 */
export function limitClassOf(
  t: Pick<UpstreamTransaction, 'status' | 'amountCents' | 'declineReason'>,
): 'passed' | 'sizeDeclined' | undefined {
  if (t.amountCents >= 0) return undefined;
  if (t.status === 'pending' || t.status === 'settled') return 'passed';
  if (t.status === 'declined' && isSizeLimitDecline(t.declineReason)) return 'sizeDeclined';
  return undefined;
}

/** Both bounds inclusive (the service takes minimum = maximum as one allowed amount). */
export interface Limits {
  minimumCents: number;
  maximumCents?: number;
}

export const withinLimits = (cents: number, limits: Limits) =>
  cents >= limits.minimumCents &&
  (limits.maximumCents === undefined || cents <= limits.maximumCents);

/** A card's window, reduced to what any limits need. */
export interface CardWindow {
  from: number;
  to: number;
  examined: number;
  /** |amount| of each debit that went through. */
  passed: number[];
  /** |amount| of each debit declined for the size limit. */
  sizeDeclined: number[];
  /** Sub accounts with rows of the card, most rows first. */
  subAccountIds: string[];
}

export function impactOf(window: CardWindow, limits: Limits): LimitImpact {
  const wouldRefuse = { count: 0, sumCents: 0 };
  const wouldAllow = { count: 0, sumCents: 0 };
  for (const cents of window.passed) {
    if (withinLimits(cents, limits)) continue;
    wouldRefuse.count += 1;
    wouldRefuse.sumCents += cents;
  }
  for (const cents of window.sizeDeclined) {
    if (!withinLimits(cents, limits)) continue;
    wouldAllow.count += 1;
    wouldAllow.sumCents += cents;
  }
  const applied: Limits = { minimumCents: limits.minimumCents };
  if (limits.maximumCents !== undefined) applied.maximumCents = limits.maximumCents;
  return {
    from: window.from,
    to: window.to,
    examined: window.examined,
    wouldRefuse,
    wouldAllow,
    limits: applied,
    subAccountIds: window.subAccountIds,
  };
}

/** The query's limits, each one it leaves out being the card's current one. */
export function limitsFor(card: UpstreamCard, query: Partial<Limits>): Limits {
  const current = card.spendingConstraint?.spendingRule?.transactionSizeLimit;
  const minimumCents = query.minimumCents ?? current?.minimum?.amountCents ?? 0;
  const maximumCents = query.maximumCents ?? current?.maximum?.amountCents;
  if (maximumCents !== undefined && minimumCents > maximumCents) {
    throw new AppError(
      400,
      'invalid_query',
      query.maximumCents === undefined
        ? `minimumCents: the minimum must not be above the card's maximum (${maximumCents} cents)`
        : `maximumCents: the maximum must not be below the card's minimum (${minimumCents} cents)`,
    );
  }
  const limits: Limits = { minimumCents };
  if (maximumCents !== undefined) limits.maximumCents = maximumCents;
  return limits;
}

/**
 * What new transaction-size limits would have done to a card's last 90 days.
 *
 * The transaction list is per sub account and a card does not say which one it belongs to,
 * so every sub account is asked for the card's rows (`card_id`, the window's bounds), a few at
 * once; where more than a page comes back, that sub account's window is split into date
 * ranges walked at once, as the CSV export does (`date-ranges.ts`): every row in exactly one
 * range. Only amounts are kept, so one walk serves any limits: previews of the same card
 * running at the same time share it, whatever limits each asks about.
 *
 * A preview is a bulk walk, as an export is: every call it makes (the card too) retries from
 * the bulk budget, and it runs in one of the person's walk slots (`walk-gate.ts`), waiting
 * briefly in line when they are taken, so a flood of previews cannot take the card service's
 * rate limit from people's reads. Joining a walk already running needs no slot.
 */
export function createLimitImpactService({
  upstream,
  clock,
  walkGate,
}: Pick<FeatureDeps, 'upstream' | 'clock' | 'walkGate'>) {
  /** Per card, the walk running now and the card as it was read when it began. */
  const walking = new Map<string, { card: UpstreamCard; window: Promise<CardWindow> }>();
  /** The preview from the card's walk running now, if there is one (its 400 at once). */
  const joined = (cardId: string, query: Partial<Limits>): Promise<LimitImpact> | undefined => {
    const shared = walking.get(cardId);
    if (!shared) return undefined;
    const limits = limitsFor(shared.card, query);
    return shared.window.then((window) => impactOf(window, limits));
  };

  return {
    async preview(who: Who, cardId: string, query: Partial<Limits>): Promise<LimitImpact> {
      const running = joined(cardId, query);
      if (running) return running;
      const release = await walkGate.acquire(who.actor.email);
      /** The card's walk begun while this one waited: joined, and the slot given back. */
      const begun = () => {
        const shared = joined(cardId, query);
        if (shared) release();
        return shared;
      };
      try {
        const waited = begun();
        if (waited) return await waited;
        const ctx = {
          requestId: who.requestId,
          trace: who.trace,
          role: who.actor.role,
          bulk: true,
        };
        // An unknown card is the upstream's 404, and limits it refuses a 400, before any walk.
        const card = await upstream.getCard(ctx, cardId);
        const limits = limitsFor(card, query);
        const read = begun();
        if (read) return await read;
        const to = clock.now();
        // Shared, so never tied to one browser's connection.
        const window = walkCard(upstream, ctx, cardId, to - IMPACT_WINDOW_MS, to);
        walking.set(cardId, { card, window });
        const done = () => walking.delete(cardId);
        window.then(done, done);
        return impactOf(await window, limits);
      } finally {
        release();
      }
    },
  };
}

async function listSubAccountIds(upstream: UpstreamClient, ctx: CallContext): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < MAX_SUB_ACCOUNT_PAGES; pages++) {
    const page = await upstream.listSubAccounts(ctx, cursor ? { cursor } : {});
    for (const sub of page.items) ids.push(sub.id);
    const next = page.metadata.nextCursor;
    if (next === undefined || next === cursor) break;
    cursor = next;
  }
  return ids;
}

/** Runs `work` over `items`, at most `width` at once. */
async function eachAtOnce<T>(items: T[], width: number, work: (item: T) => Promise<void>) {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++] as T);
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker));
}

export async function walkCard(
  upstream: UpstreamClient,
  ctx: CallContext,
  cardId: string,
  from: number,
  to: number,
): Promise<CardWindow> {
  const window: CardWindow = {
    from,
    to,
    examined: 0,
    passed: [],
    sizeDeclined: [],
    subAccountIds: [],
  };
  const rowsBySub = new Map<string, number>();
  const take = (subAccountId: string, items: UpstreamTransaction[]) => {
    if (!items.length) return;
    window.examined += items.length;
    rowsBySub.set(subAccountId, (rowsBySub.get(subAccountId) ?? 0) + items.length);
    for (const t of items) {
      const kind = limitClassOf(t);
      if (kind) window[kind].push(-t.amountCents);
    }
  };
  // One failure fails the preview: the requests still in flight are cut.
  const stop = new AbortController();
  const walkCtx = { ...ctx, signal: stop.signal };
  try {
    const subAccountIds = await listSubAccountIds(upstream, walkCtx);
    await eachAtOnce(subAccountIds, IMPACT_SUB_ACCOUNTS_AT_ONCE, (subAccountId) =>
      walkSubAccount(upstream, walkCtx, { subAccountId, cardId, from, to }, (items) =>
        take(subAccountId, items),
      ),
    );
  } catch (error) {
    stop.abort();
    throw error;
  }
  window.subAccountIds = [...rowsBySub].sort((a, b) => b[1] - a[1]).map(([id]) => id);
  return window;
}

interface Filter {
  subAccountId: string;
  cardId: string;
  from: number;
  to: number;
}

/**
 * Every row of the card in one sub account's window. The first page of the whole window is
 * read first; if it is the only one, that is all. Otherwise the window is split into ranges
 * sized from that page and `IMPACT_WALKS` of them are walked at once. As in the export, a
 * range cut below another is asked for one millisecond more and keeps only rows at or before
 * its bound, so a service keeping finer dates than milliseconds loses no row between ranges.
 */
async function walkSubAccount(
  upstream: UpstreamClient,
  ctx: CallContext,
  filter: Filter,
  take: (items: UpstreamTransaction[]) => void,
): Promise<void> {
  const fetchPage = (range: DateRange, cursor?: string) => {
    const cut = range.to !== filter.to ? range.to : undefined;
    return upstream.listTransactionsDeferred(ctx, {
      subAccountId: filter.subAccountId,
      cardId: filter.cardId,
      fromDate: range.from ?? filter.from,
      toDate: cut === undefined ? (range.to ?? filter.to) : cut + 1,
      cursor,
    });
  };
  /** Walks a range to its end from `page` (its first); returns its rows. */
  const walkRange = async (range: DateRange, page: DeferredPage<UpstreamTransaction>) => {
    const cut = range.to !== filter.to ? range.to : undefined;
    let rows = 0;
    await walkPages(
      page,
      (cursor) => fetchPage(range, cursor),
      (checked) => {
        const items =
          cut === undefined ? checked : checked.filter((t) => Date.parse(t.date) <= cut);
        rows += items.length;
        take(items);
      },
    );
    return rows;
  };

  const whole: DateRange = { from: filter.from, to: filter.to };
  const first = await fetchPage(whole);
  const firstItems = first.items();
  if (first.metadata.nextCursor === undefined || firstItems.length === 0) {
    await walkRange(whole, first);
    return;
  }
  const planner = createRangePlanner(
    filter,
    { dates: firstItems.map((t) => Date.parse(t.date)) },
    IMPACT_PAGES_PER_RANGE * firstItems.length,
  );
  const walker = async () => {
    for (let range = planner.next(); range; range = planner.next()) {
      // A first range that is the whole window is the first page's own walk.
      const isWhole = range.from === filter.from && range.to === filter.to;
      const rows = await walkRange(range, isWhole ? first : await fetchPage(range));
      planner.walked(range, rows);
    }
  };
  await Promise.all(Array.from({ length: IMPACT_WALKS }, walker));
}

/**
 * The query's limits as plain digits: the schema's number coercion would also take an empty
 * value as 0, and `1e4`, ` 12` or `0x10` as numbers, none of which a person typed as cents.
 */
export function strictLimitDigits(query: Record<string, string>): void {
  for (const name of ['minimumCents', 'maximumCents'] as const) {
    const value = query[name];
    if (value !== undefined && !/^\d{1,15}$/.test(value)) {
      throw new AppError(400, 'invalid_query', `${name}: a whole number of cents, digits only`);
    }
  }
}
