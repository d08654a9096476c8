import type { Card } from '@card-console/shared/api/cards';
import type { SpendingConstraint, UpstreamCard } from '@card-console/shared/upstream/card';
import type { ListEnvelope } from '@card-console/shared/upstream/common';
import type { Logger } from 'pino';
import type { Clock } from '../../core/clock';
import { newRequestId } from '../../platform/request-ids';
import type { UpstreamClient } from '../../upstream/client';
import { paginate, walkBudget } from '../../upstream/paginate';
import { WALK_LIMITS } from '../../upstream/walk-limits';
import { toApiCard } from './card-mapper';

/** What a transaction shows of the card that paid. Shared by every row that names the card. */
export interface CardLabel {
  readonly name: string;
  readonly last4?: string;
}

/** A card's utilisation limit as the card list last gave it (the cards list measures spend on it). */
export type UtilizationLimit = NonNullable<
  NonNullable<SpendingConstraint['spendingRule']>['utilizationLimit']
>;

/** What the directory keeps of a card: never its number or code (`toApiCard` drops them). */
interface Entry {
  readonly label: CardLabel;
  readonly utilizationLimit: UtilizationLimit | undefined;
  readonly card: Card;
}

function entryOf(card: UpstreamCard): Entry {
  return {
    label: { name: card.name, last4: card.last4 },
    utilizationLimit: card.spendingConstraint?.spendingRule?.utilizationLimit,
    card: toApiCard(card),
  };
}

/**
 * Card id → name and last 4, for the transactions list, detail and CSV, and utilisation limit,
 * for the cards list's spend, kept by walking the card service's card list (GET /card, every
 * page) so no row ever costs an upstream call.
 *
 * - One walk at a time: everyone who asks while one runs shares it.
 * - Bounded age: a read finding the directory older than `maxAgeMs` starts a walk in the
 *   background and is served the map it has; a read waits only while the directory has never
 *   been filled, and then at most `firstFillWaitMs` (the walk goes on; rows read meanwhile
 *   show their card id).
 * - A card id the directory does not know starts a walk too, at most once per
 *   `unknownRefreshGapMs` and never within that long of the last walk (a card the service no
 *   longer lists would otherwise start one on every page).
 * - A walk that fails keeps the map as it was (logged; tried again after
 *   `failureRetryGapMs`): a read is never failed by its directory. A walk is bounded
 *   (`maxPages`, `maxWalkMs`: `WALK_LIMITS.cards`), so a card list that never ends fails it
 *   too, as does a cursor that repeats (`paginate`).
 * - `remember` puts a card the BFF has just changed (a rename) in at once, and keeps it over a
 *   walk already under way, whose pages may predate the change.
 *
 * Each BFF replica keeps its own directory: a rename through another replica shows here once
 * this one's directory is older than `maxAgeMs` and is read.
 */
export interface CardDirectory {
  /**
   * Resolves when a request may read the directory: at once once it has been filled, else
   * when the first walk ends or `firstFillWaitMs` has passed. Never rejects.
   */
  ready(): Promise<void>;
  /**
   * Whether a walk has ever filled it: until then it knows no card, which a list must not take
   * for "no card matches".
   */
  filled(): boolean;
  /** The card's name and last 4; undefined for a card the directory cannot name. */
  label(cardId: string): CardLabel | undefined;
  /**
   * The card's utilisation limit as the directory has it: `known` false for a card it does
   * not know (which starts a walk, as `label` does).
   */
  utilizationLimit(cardId: string): { known: boolean; limit?: UtilizationLimit };
  /** Every card the directory knows, as the browser may see it. */
  cards(): Card[];
  /** A card as the BFF just saw it change (its name, last 4 and limits). */
  remember(card: UpstreamCard): void;
}

export interface CardDirectoryOptions {
  /** One page of the card list; `requestId` is the walk's, for the service's logs. */
  listPage(cursor: string | undefined, requestId: string): Promise<ListEnvelope<UpstreamCard>>;
  clock: Clock;
  logger: Logger;
  maxAgeMs?: number;
  unknownRefreshGapMs?: number;
  failureRetryGapMs?: number;
  firstFillWaitMs?: number;
  /**
   * A walk asking for more pages than this fails (25 cards a page: 100,000), as one taking
   * longer than `maxWalkMs` does: the directory keeps the cards it had (`WALK_LIMITS.cards`).
   */
  maxPages?: number;
  maxWalkMs?: number;
}

export const cardDirectoryDefaults = {
  maxAgeMs: 60_000,
  unknownRefreshGapMs: 15_000,
  failureRetryGapMs: 10_000,
  firstFillWaitMs: 2_000,
  maxPages: WALK_LIMITS.cards.maxPages,
  maxWalkMs: WALK_LIMITS.cards.timeMs,
} as const;

const settled = Promise.resolve();

export function createCardDirectory(options: CardDirectoryOptions): CardDirectory {
  const o = { ...cardDirectoryDefaults, ...options };
  const log = o.logger.child({ component: 'card-directory' });
  let cards = new Map<string, Entry>();
  /** When the walk that made `cards` started (its pages are at least that fresh). */
  let filledAt: number | undefined;
  let walking: Promise<void> | undefined;
  /** Cards remembered since the running walk started, put over its result. */
  let rememberedDuringWalk: Map<string, Entry> | undefined;
  /** No walk starts before this (set after a failure). */
  let notBefore = Number.NEGATIVE_INFINITY;
  let lastUnknownWalk = Number.NEGATIVE_INFINITY;

  async function walk(requestId: string): Promise<Map<string, Entry>> {
    const fresh = new Map<string, Entry>();
    const budget = walkBudget(
      { what: WALK_LIMITS.cards.what, maxPages: o.maxPages, timeMs: o.maxWalkMs },
      { now: () => o.clock.now() },
    );
    const pages = paginate({
      first: () => o.listPage(undefined, requestId),
      next: (cursor) => o.listPage(cursor, requestId),
      cursorOf: (page) => page.metadata.nextCursor,
      keysOf: (page) => page.items.map((card) => card.id),
      budget,
    });
    for await (const page of pages) {
      for (const card of page.items) fresh.set(card.id, entryOf(card));
    }
    return fresh;
  }

  function refresh(): Promise<void> {
    if (walking) return walking;
    const startedAt = o.clock.now();
    // Never a card number in the id it is logged and sent with (request-ids.ts says why).
    const requestId = `card-directory-${newRequestId()}`;
    const remembered = new Map<string, Entry>();
    rememberedDuringWalk = remembered;
    walking = walk(requestId)
      .then(
        (fresh) => {
          for (const [id, label] of remembered) fresh.set(id, label);
          cards = fresh;
          filledAt = startedAt;
          log.debug({ requestId, cards: fresh.size }, 'card directory refreshed');
        },
        (error: unknown) => {
          notBefore = o.clock.now() + o.failureRetryGapMs;
          log.warn(
            { requestId, code: (error as { code?: unknown })?.code ?? 'error', cards: cards.size },
            'card directory refresh failed; keeping the cards it had',
          );
        },
      )
      .finally(() => {
        walking = undefined;
        rememberedDuringWalk = undefined;
      });
    return walking;
  }

  function firstFill(): Promise<void> {
    const fill = refresh();
    return new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, o.firstFillWaitMs);
      timer.unref();
      void fill.then(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /** A card's entry; a card it does not know starts a walk (at most once per gap). */
  function find(cardId: string): Entry | undefined {
    const found = cards.get(cardId);
    if (found === undefined && !walking && filledAt !== undefined) {
      const now = o.clock.now();
      const since = Math.max(filledAt, lastUnknownWalk);
      if (now - since >= o.unknownRefreshGapMs && now >= notBefore) {
        lastUnknownWalk = now;
        void refresh();
      }
    }
    return found;
  }

  return {
    ready() {
      const now = o.clock.now();
      if (filledAt === undefined) {
        if (!walking && now < notBefore) return settled;
        return firstFill();
      }
      if (!walking && now - filledAt >= o.maxAgeMs && now >= notBefore) void refresh();
      return settled;
    },

    filled() {
      return filledAt !== undefined;
    },

    label(cardId) {
      return find(cardId)?.label;
    },

    utilizationLimit(cardId) {
      const found = find(cardId);
      if (found === undefined) return { known: false };
      return found.utilizationLimit === undefined
        ? { known: true }
        : { known: true, limit: found.utilizationLimit };
    },

    cards() {
      return [...cards.values()].map((entry) => entry.card);
    },

    remember(card) {
      const entry = entryOf(card);
      cards.set(card.id, entry);
      rememberedDuringWalk?.set(card.id, entry);
    },
  };
}

/** The card list as the directory walks it: a background walk, retried from the bulk budget. */
export function upstreamCardPages(upstream: UpstreamClient): CardDirectoryOptions['listPage'] {
  return (cursor, requestId) =>
    upstream.listCards({ requestId, bulk: true }, cursor === undefined ? {} : { cursor });
}
