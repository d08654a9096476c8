import type { LimitImpact } from '@card-console/shared/api/overview';
import { moneyBucketOf } from '@card-console/shared/money-definition';
import type { UpstreamCard } from '@card-console/shared/upstream/card';
import type { UpstreamTransaction } from '@card-console/shared/upstream/transaction';
import pLimit from 'p-limit';
import type { Logger } from 'pino';
import { AppError } from '../../core/app-error';
import type { Who } from '../../platform/sessions/who';
import type { CallContext, UpstreamClient } from '../../upstream/client';
import { type WalkBudget, walkBudget } from '../../upstream/paginate';
import { transactionPages, walkRanges } from '../../upstream/ranged-walk';
import { allSubAccounts } from '../../upstream/sub-account-pages';
import { WALK_LIMITS } from '../../upstream/walk-limits';
import type { FeatureDeps } from '../feature-deps';

const DAY_MS = 86_400_000;
/** The window a preview looks at: the last 90 days, up to now. */
export const IMPACT_WINDOW_MS = 90 * DAY_MS;
/** Sub accounts looked in at once for the card's transactions. */
export const IMPACT_SUB_ACCOUNTS_AT_ONCE = 4;
/** Date ranges of one sub account walked at once (each its own cursor). */
export const IMPACT_WALKS = 4;
/** A range is sized to about this many pages. */
export const IMPACT_PAGES_PER_RANGE = 8;

/**
 * A decline for the card's transaction-size limit. The service names reasons in free text
 * (the simulator: "Exceeds transaction size limit"), so the words are matched, not the case.
 */
export function isSizeLimitDecline(reason: string | undefined): boolean {
  return reason !== undefined && /transaction size limit/i.test(reason);
}

/**
 * What a limit applies to, by the one definition of money (`money-definition.ts`): only the
 * card's charges are authorised against the size limit.
 * - `passed`: a charge that went through: money moved or will (settled, pending, disputed);
 * - `sizeDeclined`: a charge that never moved, declined for the size limit;
 * anything else (refunds and credits, which the holder does not authorise; released charges,
 * and those declined, canceled or failed for another reason) is neither.
 */
export function limitClassOf(
  t: Pick<UpstreamTransaction, 'status' | 'amountCents' | 'declineReason' | 'cardId'>,
): 'passed' | 'sizeDeclined' | undefined {
  const bucket = moneyBucketOf(t);
  if (bucket === 'card') return 'passed';
  if (bucket === 'attempted' && t.amountCents < 0 && isSizeLimitDecline(t.declineReason)) {
    return 'sizeDeclined';
  }
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
  /** |amount| of each charge that went through. */
  passed: number[];
  /** |amount| of each charge declined for the size limit. */
  sizeDeclined: number[];
  /** Sub accounts with rows of the card, most rows first. */
  subAccountIds: string[];
}

type Charges = LimitImpact['wentThrough'];

const none = (): Charges => ({ count: 0, sumCents: 0 });
const add = (into: Charges, cents: number) => {
  into.count += 1;
  into.sumCents += cents;
};
const total = (amounts: number[]): Charges => {
  const sum = none();
  for (const cents of amounts) add(sum, cents);
  return sum;
};

/** What one set of limits would have done: the charges it refuses that went through, and the
 *  size-limit declines it allows. */
function outcomeOf(window: CardWindow, limits: Limits): LimitImpact['current'] {
  const wouldRefuse = none();
  const wouldAllow = none();
  for (const cents of window.passed) if (!withinLimits(cents, limits)) add(wouldRefuse, cents);
  for (const cents of window.sizeDeclined) if (withinLimits(cents, limits)) add(wouldAllow, cents);
  const applied: Limits = { minimumCents: limits.minimumCents };
  if (limits.maximumCents !== undefined) applied.maximumCents = limits.maximumCents;
  return { limits: applied, wouldRefuse, wouldAllow };
}

/**
 * The proposed limits beside the current ones over the card's window. Which is looser follows
 * from the charges themselves, each one (went through or declined for size) judged by both:
 * those only the proposed limits refuse, and those only they allow.
 */
export function impactOf(window: CardWindow, current: Limits, proposed: Limits): LimitImpact {
  const refusedOnlyByProposed = none();
  const allowedOnlyByProposed = none();
  for (const cents of [...window.passed, ...window.sizeDeclined]) {
    const now = withinLimits(cents, current);
    if (now === withinLimits(cents, proposed)) continue;
    add(now ? refusedOnlyByProposed : allowedOnlyByProposed, cents);
  }
  const tighter = refusedOnlyByProposed.count > 0;
  const looser = allowedOnlyByProposed.count > 0;
  return {
    from: window.from,
    to: window.to,
    examined: window.examined,
    wentThrough: total(window.passed),
    sizeDeclined: total(window.sizeDeclined),
    current: outcomeOf(window, current),
    proposed: outcomeOf(window, proposed),
    refusedOnlyByProposed,
    allowedOnlyByProposed,
    effect: tighter ? (looser ? 'mixed' : 'tighter') : looser ? 'looser' : 'same',
    subAccountIds: window.subAccountIds,
  };
}

/** The card's limits now (no minimum: 0; no maximum: none). */
export function currentLimitsOf(card: UpstreamCard): Limits {
  return limitsFor(card, {});
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
 * What new transaction-size limits would have done to a card's last 90 days, beside what its
 * current ones would have (`impactOf`).
 *
 * The transaction list is per sub account and a card does not say which one it belongs to,
 * so every sub account is asked for the card's rows (`card_id`, the window's bounds), a few at
 * once (`p-limit`); where more than a page comes back, that sub account's window is split
 * into date ranges walked at once, as the CSV export does (`upstream/ranged-walk.ts`): every
 * row in exactly one range. Only amounts are kept, so one walk serves any limits: previews of the same card
 * running at the same time share it, whatever limits each asks about.
 *
 * A preview is a bulk walk, as an export is: every call it makes (the card too) retries from
 * the bulk budget, and it runs in one of the person's walk slots (`walk-gate.ts`), waiting
 * briefly in line when they are taken, so a flood of previews cannot take the card service's
 * rate limit from people's reads. Joining a walk already running needs no slot. The walk is
 * bounded (`WALK_LIMITS.limitPreview`, its sub-account list `WALK_LIMITS.subAccounts`): a
 * card service that never ends a list makes the preview a clear 502 or 504, not a wait.
 */
export function createLimitImpactService({
  upstream,
  clock,
  walkGate,
  logger,
}: Pick<FeatureDeps, 'upstream' | 'clock' | 'walkGate'> & Partial<Pick<FeatureDeps, 'logger'>>) {
  /** Per card, the walk running now and the card as it was read when it began. */
  const walking = new Map<string, { card: UpstreamCard; window: Promise<CardWindow> }>();
  /** The preview from the card's walk running now, if there is one (its 400 at once). */
  const joined = (cardId: string, query: Partial<Limits>): Promise<LimitImpact> | undefined => {
    const shared = walking.get(cardId);
    if (!shared) return undefined;
    const limits = limitsFor(shared.card, query);
    const current = currentLimitsOf(shared.card);
    return shared.window.then((window) => impactOf(window, current, limits));
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
        const budget = walkBudget(WALK_LIMITS.limitPreview, { now: () => clock.now() });
        const window = walkCard(upstream, ctx, cardId, to - IMPACT_WINDOW_MS, to, budget, logger);
        walking.set(cardId, { card, window });
        const done = () => walking.delete(cardId);
        window.then(done, done);
        return impactOf(await window, currentLimitsOf(card), limits);
      } finally {
        release();
      }
    },
  };
}

export async function walkCard(
  upstream: UpstreamClient,
  ctx: CallContext,
  cardId: string,
  from: number,
  to: number,
  budget: WalkBudget = walkBudget(WALK_LIMITS.limitPreview),
  /** Told of rows dated outside the dates asked for, which the walk drops. */
  logger?: Pick<Logger, 'warn'>,
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
      // Listed for the card, so the card's, whether or not the row repeats its id.
      const kind = limitClassOf({ ...t, cardId: t.cardId ?? cardId });
      if (kind) window[kind].push(-t.amountCents);
    }
  };
  // One failure fails the preview: the requests still in flight are cut.
  const stop = new AbortController();
  const walkCtx = { ...ctx, signal: stop.signal };
  const limit = pLimit(IMPACT_SUB_ACCOUNTS_AT_ONCE);
  try {
    const subs = await allSubAccounts(upstream, walkCtx, budget.child(WALK_LIMITS.subAccounts));
    await Promise.all(
      subs.map(({ id: subAccountId }) =>
        limit(() =>
          walkSubAccount(
            upstream,
            walkCtx,
            budget,
            { subAccountId, cardId, from, to },
            logger,
            (items) => take(subAccountId, items),
          ),
        ),
      ),
    );
  } catch (error) {
    limit.clearQueue();
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
 * Every row of the card in one sub account's window: a ranged walk (`upstream/ranged-walk.ts`)
 * of `IMPACT_PAGES_PER_RANGE`-page ranges, `IMPACT_WALKS` at once, under the preview's budget.
 */
async function walkSubAccount(
  upstream: UpstreamClient,
  ctx: CallContext,
  budget: WalkBudget,
  filter: Filter,
  log: Pick<Logger, 'warn'> | undefined,
  take: (items: UpstreamTransaction[]) => void,
): Promise<void> {
  const pace = upstream.pace?.walk('asked');
  await walkRanges({
    span: { from: filter.from, to: filter.to },
    page: transactionPages(
      upstream,
      ctx,
      { subAccountId: filter.subAccountId, cardId: filter.cardId },
      { from: filter.from, to: filter.to },
    ),
    dateOf: (t) => Date.parse(t.date),
    keyOf: (t) => t.id,
    ...(log ? { log } : {}),
    atOnce: IMPACT_WALKS,
    pagesPerRange: IMPACT_PAGES_PER_RANGE,
    ...(pace ? { pace } : {}),
    budget,
    ...(ctx.signal ? { signal: ctx.signal } : {}),
    range: () => ({ take: (rows) => take(rows()) }),
  });
}
