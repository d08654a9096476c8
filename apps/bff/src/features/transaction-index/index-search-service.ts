// Answers the transactions screen from the index: the filtered page, the count and sums of the
// whole filtered set, and how fresh it all is. Reading starts the sync of every asked sub
// account not fully walked (never synced, or a sync cut short) or whose open days were last
// read `refreshMs` ago or more; the answer does not wait for it: it says a sync is running,
// and the screen asks again.

import type { AccountingCategory } from '@card-console/shared/api/accounting-categories';
import { ownershipKeyOf } from '@card-console/shared/api/card-owners';
import type { Notes } from '@card-console/shared/api/notes';
import type {
  IndexFreshness,
  IndexPage,
  IndexQueue,
  IndexQueueNext,
  IndexTotalsAnswer,
} from '@card-console/shared/api/transaction-index';
import {
  ACCOUNTING_ROWS_PER_FILE,
  type Attention,
  type CardSubAccounts,
  type CardsMoney,
  type CardUtilization,
  type ExportFormat,
  INDEX_BREAKDOWN_GROUPS,
  INDEX_PAGE_DEFAULT,
  type IndexCard,
  type IndexCardList,
  type IndexCardListQuery,
  type IndexMerchant,
  MERCHANT_DESCRIPTORS,
  type MerchantNameChange,
  type MerchantNamed,
  type MerchantNameReset,
} from '@card-console/shared/api/transaction-index';
import { uncategorized } from '@card-console/shared/category-groups';
import { type MerchantName, merchantKeyOf } from '@card-console/shared/merchants';
import { centsToDollarInput, formatCents } from '@card-console/shared/money';
import { netCardSpendCents, statusesOf } from '@card-console/shared/money-definition';
import { AppError } from '../../core/app-error';
import type { NewAuditRecord } from '../../platform/audit/audit-store';
import { auditedChange } from '../../platform/audit/audited-change';
import type { BackgroundJobs } from '../../platform/jobs/background-jobs';
import { failureBackoffMs } from '../../platform/jobs/failure-backoff';
import { paginate } from '../../platform/pagination/paginate';
import { type PageSource, walkBudget } from '../../platform/pagination/walk-budget';
import { holdsCardNumber } from '../../platform/security/card-number-ids';
import { maskCardNumbers } from '../../platform/security/card-numbers';
import type { Who } from '../../platform/sessions/who';
import type { SqlQueryable } from '../../platform/sql/sql-engine';
import { WALK_LIMITS } from '../../upstream/walk-limits';
import {
  type CardOwnersStore,
  cardsMatching,
  orderCards,
  serviceSort,
  type UtilizationLimit,
} from '../cards';
import type { ClosePolicyStore } from '../close-policy';
import type { FeatureDeps } from '../feature-deps';
import type { NotesStore } from '../notes';
import type { ExportRows } from '../transactions';
import {
  type CsvRowOptions,
  csvColumns,
  csvLines,
  exportText,
  merchantCategoryName,
  toApiTransaction,
  toCsvRecord,
} from '../transactions';
import { ACCOUNTING_COLUMNS, accountingLines, postedOnly } from './accounting-files';
import { categoryGroupRange } from './category-catalog';
import {
  BadIndexCursorError,
  type IndexedTransaction,
  type IndexFilter,
  type IndexGrouping,
  type IndexOrder,
  type IndexSummary,
  MAX_INDEX_PAGE,
  type OverviewTallies,
  pageAfterCount,
  storable,
  type TransactionIndexStore,
} from './index-store';
import {
  combinedProgress,
  daysToWalk,
  INDEX_HISTORY_DAYS,
  INDEX_SETTLING_DAYS,
  type IndexRowsWritten,
  type IndexSyncInput,
  type IndexSyncProgress,
  indexSyncWork,
  lateChangeSweeps,
  newSyncProgress,
  syncDoneAt,
  utcDay,
} from './index-sync';
import { MERCHANT_GROUPS_MIN_MS, merchantGroupsOf } from './merchant-groups';
import type { MerchantNamesStore } from './merchant-names-store';
import { pageCursors } from './page-cursor';
import {
  checkReceiptsZipCaps,
  DEFAULT_RECEIPTS_ZIP_CAPS,
  type PlannedReceipt,
  plannedFiles,
  type ReceiptsZipCaps,
  totalsOf,
} from './receipt-zip-files';
import type { ZipFile } from './stream-zip';
import { type SubAccountList, upstreamSubAccountList } from './sub-account-list';
import { syncLag } from './sync-lag';
import { currentUtilizationWindow, type UtilizationWindow } from './utilization-window';

const DAY_MS = 86_400_000;
/** Asked to refresh, open days are read again only if read at least this long ago. */
export const MIN_REFRESH_MS = 5_000;
/** A card's latest transactions shown on its page. */
const CARD_RECENT = 10;

/** The stores the index's reads use: its own, the notes' and the close policy's (their features'). */
export interface IndexStores {
  index(): Promise<TransactionIndexStore>;
  /** Each card's owner and team (the cards feature's): a sub account's cards by owner or team. */
  cardOwners(): Promise<CardOwnersStore>;
  merchantNames(): Promise<MerchantNamesStore>;
  notes(): Promise<NotesStore>;
  closePolicy(): Promise<ClosePolicyStore>;
}

export interface IndexSearchDeps extends FeatureDeps {
  /** The stores it reads, made by the composition root over platform/sql's engine. */
  stores: IndexStores;
  /** How old the open days' sync may be before a read starts another (the Overview's rule). */
  indexRefreshMs: number;
  /** Given each synced range's rows once written (the alerts, wired by the app); none in tests. */
  indexRowsWritten?: IndexRowsWritten | undefined;
  /** The sub-account list the app shares with the alerts; one of its own by default. */
  subAccountList?: SubAccountList | undefined;
  /** Seals the list's page cursors (the session secret: replicas share it); random if none. */
  indexCursorSecret?: string | undefined;
  /** Where the syncs run: background jobs the replicas share, any replica's worker running each. */
  backgroundJobs: BackgroundJobs;
  /** What one receipts ZIP may hold (`config.receiptsZip`); the defaults when not given. */
  receiptsZip?: ReceiptsZipCaps | undefined;
}

export interface IndexSearchInput {
  subAccountId?: string[];
  q?: string;
  merchant?: string[];
  /** Merchants by name: every text of theirs the index holds (`merchantGroups`). */
  merchantName?: string[];
  category?: string[];
  categoryGroup?: string[];
  status?: string[];
  cardId?: string[];
  /** The cards of these owners, or of these teams, by name (Card Console's). */
  owner?: string[];
  team?: string[];
  declineReason?: string[];
  noDeclineReason?: '1';
  card?: 'with' | 'without';
  minCents?: number;
  maxCents?: number;
  from?: number;
  to?: number;
  sort?: 'date' | 'amount';
  direction?: 'asc' | 'desc';
  cursor?: string;
  limit?: number;
  by?: IndexGrouping;
  refresh?: '1';
  review?: 'reviewed' | 'unreviewed';
  account?: string[];
  tag?: string[];
  receipt?: 'attached' | 'missing';
  memo?: 'missing' | 'written';
}

/** Back into the card service's shape, for the transactions list's own mapper. */
function asUpstream(t: IndexedTransaction) {
  return {
    id: t.id,
    date: t.at,
    description: t.description,
    amountCents: t.amountCents,
    status: t.status as never,
    referenceNumber: t.referenceNumber,
    ...(t.authorizedAt === undefined ? {} : { authorizedAt: t.authorizedAt }),
    ...(t.merchant !== undefined && t.categoryCode !== undefined
      ? { merchantData: { description: t.merchant, categoryCode: t.categoryCode } }
      : {}),
    ...(t.cardId === undefined ? {} : { cardId: t.cardId }),
    ...(t.originalCurrency === undefined ? {} : { originalCurrency: t.originalCurrency }),
    ...(t.declineReason === undefined ? {} : { declineReason: t.declineReason }),
  };
}

/** `category` and `categoryGroup` as the store's category members (any of them matches). */
function categoryMembers(input: Pick<IndexSearchInput, 'category' | 'categoryGroup'>) {
  const groups = input.categoryGroup ?? [];
  const ranges = groups.flatMap((key) => {
    const range = categoryGroupRange(key);
    return range ? [range] : [];
  });
  return {
    ...(input.category ? { categoryCodes: input.category } : {}),
    ...(ranges.length > 0 ? { categoryRanges: ranges } : {}),
    ...(groups.includes(uncategorized.key) ? { uncategorized: true } : {}),
  };
}

/** What a card's page and the cards list say of its limit and its spend in the window. */
function utilizationOf(
  limit: UtilizationLimit,
  window: UtilizationWindow | undefined,
  spentCents: number,
): CardUtilization {
  return {
    ...(limit.preset === undefined ? {} : { preset: limit.preset }),
    ...(limit.limitAmount?.amountCents === undefined
      ? {}
      : { limitCents: limit.limitAmount.amountCents }),
    ...(window
      ? {
          window: { fromDay: window.fromDay, toDay: window.toDay, timeZone: window.timeZone },
          spentCents,
        }
      : {}),
  };
}

/**
 * Why a sync failed, for people: an AppError's sentence (written for them: "The card service
 * repeated a page."), also as another replica recorded it ("AppError: …"); anything else, a
 * plain sentence (an unexpected error's text is for the log, not the screen).
 */
function reasonOf(error: unknown): string {
  if (error instanceof AppError) return error.message;
  const recorded =
    error instanceof Error ? /^AppError: (.+)$/s.exec(error.message)?.[1] : undefined;
  return recorded ?? 'The sync stopped on an unexpected error; it is in the log.';
}

/**
 * The card-console file's last column: the merchant by name (`merchant` is the network's text),
 * as the lists group it; last, so a file read by column position before it still reads.
 */
const MERCHANT_NAME_COLUMN = 'merchant name';
/** Marks a breakdown's key as a merchant's (its texts summed) rather than a text. */
const MERCHANT_GROUP_MARK = '\u001f';

export function createIndexSearchService(deps: IndexSearchDeps) {
  const { clock, upstream, logger } = deps;
  const cursors = pageCursors(deps.indexCursorSecret);
  const lag = syncLag(clock);
  // One job per sub account, run once by whichever replica takes it; reads join it.
  /** The progress of the syncs running on this replica (its metrics say how far they are). */
  const runningHere = new Set<IndexSyncProgress>();
  /** The audit record of a merchant's naming, by its key. */
  const merchantRecord = (
    who: Who,
    action: 'merchant.name' | 'merchant.unname',
    key: string,
  ): Pick<NewAuditRecord, 'actor' | 'role' | 'action' | 'target' | 'requestId'> => ({
    actor: who.actor.email,
    role: who.actor.role,
    action,
    target: `merchant:${key}`,
    requestId: who.requestId,
  });
  /** A merchant the index does not know (or no admin named): audited as refused, then a 404. */
  const unknownMerchant = async (
    base: ReturnType<typeof merchantRecord>,
    merchant: string,
    what: 'known' | 'named' = 'known',
  ) => {
    await deps.audit.append({ ...base, outcome: 'failed', detail: 'not_found' });
    return new AppError(
      404,
      'not_found',
      what === 'known'
        ? `No merchant called “${merchant.trim()}” is in the index. Name a merchant its transactions name.`
        : `No admin has named a merchant “${merchant.trim()}”: there is no name to take off.`,
    );
  };
  /** The index's merchants: its texts grouped (once a minute) with the names admins gave. */
  const merchantGrouping = merchantGroupsOf({
    clock,
    texts: async () => (await deps.stores.index()).merchantTexts(),
    names: async () => (await deps.stores.merchantNames()).all(),
  });
  const merchantGroups = (maxAgeMs?: number) => merchantGrouping.current(maxAgeMs);
  /** When this replica last swept each sub account for late status changes. */
  const lateChanges = lateChangeSweeps();
  const syncs = deps.backgroundJobs.kind<IndexSyncInput, IndexSyncProgress>('transaction-index', {
    async run(subAccountId, input, job) {
      const work = indexSyncWork({
        upstream,
        store: await deps.stores.index(),
        clock,
        logger,
        rowsWritten: deps.indexRowsWritten,
        metrics: deps.metrics,
        synced: lag.settled,
        lateChanges,
      });
      runningHere.add(job.progress);
      try {
        await work(subAccountId, input, job);
      } finally {
        runningHere.delete(job.progress);
        // New texts may have come: the merchants are grouped again when next asked (5 s on).
        merchantGrouping.written();
      }
    },
    progress: newSyncProgress,
    failureMemoryMs: failureBackoffMs,
  });
  deps.metrics.trackIndexSyncLag(lag.seconds);
  deps.metrics.trackIndexSyncProgress(() => {
    const here = combinedProgress([...runningHere]);
    return { daysLeft: Math.max(0, here.days - here.daysDone), rows: here.rows };
  });

  /**
   * When each asked sub account's open days were last read; starts the syncs that are due:
   * open days read `indexRefreshMs` ago or more, or `MIN_REFRESH_MS` when the person asked
   * to refresh (however often Refresh is pressed, a day is read at most once in that time).
   */
  async function freshness(
    subAccountIds: string[],
    requestId: string,
    refresh: boolean,
    /** The sub accounts' walked days, when the caller has just read them. */
    walked?: Map<string, Map<string, number>>,
  ): Promise<IndexFreshness> {
    const age = refresh ? Math.min(MIN_REFRESH_MS, deps.indexRefreshMs) : deps.indexRefreshMs;
    const store = await deps.stores.index();
    const now = clock.now();
    const openFrom = utcDay(now - INDEX_SETTLING_DAYS * 86_400_000);
    let updatedAt: number | undefined = Number.POSITIVE_INFINITY;
    const running: IndexSyncProgress[] = [];
    let failed: IndexFreshness['failed'];
    const walkedOf = walked ?? (await store.walkedDaysOf(subAccountIds));
    for (const subAccountId of subAccountIds) {
      const walked = walkedOf.get(subAccountId) ?? new Map<string, number>();
      const open = [...walked].filter(([day]) => day >= openFrom).map(([, at]) => at);
      // Synced: every day of the history window walked (a sync stopped part-way, its replica
      // killed, leaves days unwalked: the next read starts one that walks them).
      const complete = daysToWalk(now, walked, new Set(), Number.NEGATIVE_INFINITY).length === 0;
      const synced = complete && open.length > 0 ? Math.min(...open) : undefined;
      if (synced === undefined) updatedAt = undefined;
      else if (updatedAt !== undefined) updatedAt = Math.min(updatedAt, synced);
      const current = syncs.find(subAccountId);
      const due = synced === undefined || now - synced >= age;
      const job =
        current && (current.state() === 'running' || current.state() === 'waiting')
          ? current
          : due
            ? syncs.request(subAccountId, { requestId, freshForMs: age })
            : undefined;
      if (job && (job.state() === 'running' || job.state() === 'waiting'))
        running.push(job.progress);
      const failure = syncs.failure(subAccountId);
      if (failure && (!failed || failure.at > failed.at)) {
        failed = { reason: reasonOf(failure.error), at: failure.at, retryAt: failure.retryAt };
      }
      if (due) lag.owed(subAccountId);
      else lag.settled(subAccountId);
    }
    // The running syncs taken together, and their estimated end (`syncDoneAt`).
    const together = combinedProgress(running);
    const doneAt = running.length > 0 ? syncDoneAt(together, now) : undefined;
    return {
      ...(updatedAt === undefined || updatedAt === Number.POSITIVE_INFINITY ? {} : { updatedAt }),
      syncing: running.length > 0,
      days: together.days,
      daysDone: together.daysDone,
      ...(running.length > 0 ? { rows: together.rows } : {}),
      ...(doneAt === undefined ? {} : { doneAt }),
      ...(failed ? { failed } : {}),
    };
  }

  /** A card's name (and last four) or a category's name; none for other groupings. */
  function groupLabel(by: IndexGrouping, key: string): string | undefined {
    if (by === 'category') return merchantCategoryName(key);
    if (by !== 'card') return undefined;
    const card = deps.cardDirectory.label(key);
    if (!card) return undefined;
    return card.last4 ? `${card.name} ·${card.last4}` : card.name;
  }

  /** Every sub account, kept for the refresh age (`sub-account-list.ts`). */
  const subAccountList =
    deps.subAccountList ?? upstreamSubAccountList(upstream, clock, deps.indexRefreshMs);

  /** The asked sub accounts (every one when none is named), with their names when known. */
  async function subAccountsOf(
    who: Who,
    input: Pick<IndexSearchInput, 'subAccountId' | 'refresh'>,
  ) {
    const ctx = { requestId: who.requestId, trace: who.trace, role: who.actor.role };
    const all = await subAccountList.all(ctx, { fresh: input.refresh === '1' });
    const names = new Map(all.map((s) => [s.id, s.name]));
    const ids = input.subAccountId ?? all.map((s) => s.id);
    return { ids, names };
  }

  /**
   * The set a list or its totals read: the sub accounts asked (or every one the person sees),
   * how fresh the index is for them (starting their syncs), the store and the filter.
   */
  async function setOf(who: Who, input: IndexSearchInput) {
    const { ids: subAccountIds } = input.subAccountId
      ? { ids: input.subAccountId }
      : await subAccountsOf(who, input);
    const fresh = await freshness(subAccountIds, who.requestId, input.refresh === '1');
    const store = await deps.stores.index();
    return { fresh, store, filter: await filterFor(input, subAccountIds) };
  }

  /**
   * The query's filter, its merchants by name as the texts of theirs the index holds (grouped
   * as `merchant()` groups them, so a list, its totals and its export read the same rows). A
   * name the index has no text of matches nothing; with `merchant` too, the texts both name.
   */
  async function filterFor(input: IndexSearchInput, subAccountIds: string[]) {
    const filter = filterOf(input, subAccountIds);
    if (input.merchantName === undefined) return filter;
    const keys = input.merchantName.map(merchantKeyOf);
    let merchants = await merchantGroups();
    // A merchant first synced since the texts were grouped (its detail's link was just made).
    if (keys.some((key) => merchants.textsOf(key).length === 0)) {
      merchants = await merchantGroups(MERCHANT_GROUPS_MIN_MS);
    }
    const texts = input.merchantName.flatMap((name, i) => {
      const key = keys[i] as string;
      const all = merchants.textsOf(key).map((t) => t.text);
      // A merchant of no letter or digit is its own text alone, asked for as it is or as named.
      return key === '' ? all.filter((t) => t === name || merchants.nameOf(t).name === name) : all;
    });
    const asked = filter.merchants && new Set(filter.merchants.map((m) => m.toLowerCase()));
    return {
      ...filter,
      merchants: asked ? texts.filter((t) => asked.has(t.toLowerCase())) : texts,
    };
  }

  /**
   * Each card's utilisation limit as the card directory has it (no upstream call per card) and
   * its spend in the limit's current window; a card without a limit is left out. Cards sharing
   * a window (same preset, start and zone) are summed in one grouped query.
   */
  async function utilizationsOf(
    store: TransactionIndexStore,
    cardIds: readonly string[],
  ): Promise<Map<string, CardUtilization>> {
    const now = clock.now();
    const limits = new Map<string, { limit: UtilizationLimit; window?: UtilizationWindow }>();
    const byWindow = new Map<string, { window: UtilizationWindow; cardIds: string[] }>();
    for (const cardId of cardIds) {
      const { limit } = deps.cardDirectory.utilizationLimit(cardId);
      if (!limit) continue;
      const window = currentUtilizationWindow(limit, now);
      limits.set(cardId, window ? { limit, window } : { limit });
      if (!window) continue;
      const key = `${window.from}:${window.to}`;
      const group = byWindow.get(key) ?? { window, cardIds: [] };
      group.cardIds.push(cardId);
      byWindow.set(key, group);
    }
    const spends = await Promise.all(
      [...byWindow.values()].map(async ({ window, cardIds: ids }) => {
        const totals = await store.breakdown(
          { cardIds: ids, from: window.from, to: window.to },
          'card',
          ids.length,
        );
        return totals.groups;
      }),
    );
    const spent = new Map<string, number>();
    for (const groups of spends) {
      // Card spend by the definition: charges less refunds (settled, pending, disputed).
      for (const g of groups) if (g.key !== null) spent.set(g.key, netCardSpendCents(g.buckets));
    }
    return new Map(
      [...limits].map(([cardId, known]) => [
        cardId,
        utilizationOf(known.limit, known.window, spent.get(cardId) ?? 0),
      ]),
    );
  }

  return {
    /**
     * Asks for the open days of every sub account to be read again where due, as a read of the
     * index does (`freshness`), reading nothing from it: the background refresh that lets the
     * alerts see what arrives though nobody reads (`open-days-refresh.ts`). A sub account never
     * synced starts its first sync.
     */
    async refreshOpenDays(requestId: string): Promise<void> {
      const all = await subAccountList.all({ requestId });
      await freshness(
        all.map((s) => s.id),
        requestId,
        false,
      );
    },

    /**
     * A page of the rows the filter gives, in its order, with their notes. Never the set's
     * figures (`totals`): a narrowing filter's page asks the store whether the set is small, to
     * choose how to find its rows (`pageAfterCount`), counting no further than that tells.
     */
    async rows(who: Who, input: IndexSearchInput): Promise<IndexPage> {
      const { fresh, store, filter } = await setOf(who, input);
      const order = orderOf(input);
      try {
        // A cursor this list gave, or a 400 (`BadIndexCursorError`, below).
        const position = input.cursor === undefined ? undefined : cursors.open(input.cursor);
        // A narrowing filter's page with whether the set is small (counted up to one past the
        // bound, never whole, in the same statement): a small set's page is matched then sorted
        // rather than found by walking the whole order (`pageAfterCount`, `countedPage`).
        const limit = input.limit ?? INDEX_PAGE_DEFAULT;
        const page = pageAfterCount(filter)
          ? (await store.countedPage(filter, order, limit, position)).page
          : await store.page(filter, order, limit, position);
        const notesStore = await deps.stores.notes();
        const ids = page.items.map((t) => t.id);
        const [{ notes, receipts }] = await Promise.all([
          notesStore.notesOf(ids),
          deps.cardDirectory.ready(),
        ]);
        const answer: IndexPage = {
          items: page.items.map((t) => {
            const note = notes.get(t.id);
            const attached = receipts.get(t.id) ?? 0;
            return {
              subAccountId: t.subAccountId,
              ...toApiTransaction(asUpstream(t), deps.cardDirectory),
              // A receipt is kept apart from the notes (it never moves their version), so a
              // transaction may have receipts and no notes yet.
              ...(note
                ? { notes: listNotes(note, attached) }
                : attached > 0
                  ? { notes: { ...NO_NOTES, receipts: attached } }
                  : {}),
            };
          }),
          freshness: fresh,
        };
        if (page.next !== undefined) answer.nextCursor = cursors.seal(page.next);
        return answer;
      } catch (error) {
        if (error instanceof BadIndexCursorError) {
          throw new AppError(400, 'invalid_query', `cursor: ${error.message}`);
        }
        throw error;
      }
    },

    /**
     * The review queue around one transaction: where it stands in the list the filter and order
     * give (its place, the set's size, the matching rows before and after it) and the category
     * its merchant was last booked to. A transaction the index does not hold is a 404.
     */
    async queue(
      who: Who,
      input: IndexSearchInput & { transactionId: string },
    ): Promise<IndexQueue> {
      const { fresh, store, filter } = await setOf(who, input);
      const [around, suggested] = await Promise.all([
        store.around(filter, orderOf(input), input.transactionId),
        store.merchantsLastCategory(input.transactionId),
      ]);
      if (!around) {
        throw new AppError(
          404,
          'not_found',
          'The transaction list does not hold this transaction.',
        );
      }
      return {
        ...around,
        ...(suggested === undefined ? {} : { suggestedCategoryId: suggested }),
        freshness: fresh,
      };
    },

    /**
     * Only the matching row after one transaction in the list the filter and order give (what
     * Save and next opens), without the set's count. A transaction the index lacks is a 404.
     */
    async queueNext(
      who: Who,
      input: IndexSearchInput & { transactionId: string },
    ): Promise<IndexQueueNext> {
      const { store, filter } = await setOf(who, input);
      const found = await store.nextAfter(filter, orderOf(input), input.transactionId);
      if (!found) {
        throw new AppError(
          404,
          'not_found',
          'The transaction list does not hold this transaction.',
        );
      }
      return found;
    },

    /**
     * Every row the filter gives now (every sub account the person sees when none is named), for
     * a change of every matching row: how many, and, when at most `max`, which.
     */
    async matching(
      who: Who,
      input: IndexSearchInput,
      max: number,
    ): Promise<{
      count: number;
      rows?: { subAccountId: string; id: string }[];
      stillMatching: (q: SqlQueryable, ids: readonly string[]) => Promise<Set<string>>;
    }> {
      const { store, filter } = await setOf(who, input);
      const stillMatching = (q: SqlQueryable, ids: readonly string[]) =>
        store.stillMatching(q, filter, ids);
      const { count } = await store.summary(filter);
      if (count > max) return { count, stillMatching };
      return { count, rows: await store.matching(filter, max), stillMatching };
    },

    /**
     * The figures of the whole set the filter gives, by the definition of money, and with `by`
     * its totals by that dimension: its largest groups, the rest summed as one.
     */
    async totals(who: Who, input: IndexSearchInput): Promise<IndexTotalsAnswer> {
      const { fresh, store, filter } = await setOf(who, input);
      // By merchant: the texts of a merchant written several ways summed as one (keyed apart
      // from any text by a character no stored text has), each group named as people see it.
      const merchants = input.by === 'merchant' ? await merchantGroups() : undefined;
      const merchantName = (stored: string) => {
        // A text that starts with the mark itself (the contract allows any) has no merchant
        // of that key: it is read as the text it is.
        const grouped = stored.startsWith(MERCHANT_GROUP_MARK)
          ? merchants?.textsOf(stored.slice(MERCHANT_GROUP_MARK.length))[0]?.text
          : undefined;
        return merchants?.nameOf(grouped ?? stored).name || stored;
      };
      const [{ summary, breakdown }] = await Promise.all([
        store.totals(
          filter,
          input.by === undefined
            ? undefined
            : {
                grouping: input.by,
                limit: INDEX_BREAKDOWN_GROUPS,
                ...(merchants && {
                  merchantGroups: new Map(
                    [...merchants.severalWays()].map(([text, key]) => [
                      text,
                      `${MERCHANT_GROUP_MARK}${key}`,
                    ]),
                  ),
                }),
              },
        ),
        input.by === undefined ? undefined : deps.cardDirectory.ready(),
      ]);
      const answer: IndexTotalsAnswer = { summary, freshness: fresh };
      if (input.by !== undefined && breakdown !== undefined) {
        const by = input.by;
        answer.breakdown = {
          by,
          groupCount: breakdown.groupCount,
          ...(breakdown.other === undefined ? {} : { other: breakdown.other }),
          groups: breakdown.groups.map(({ key: stored, ...totals }) => {
            // A merchant's group is keyed by its name (the list narrows to it by name).
            const key = stored !== null && merchants ? merchantName(stored) : stored;
            const label = key === null ? undefined : groupLabel(by, key);
            return {
              ...(key === null ? {} : { key }),
              ...(label === undefined ? {} : { label }),
              ...totals,
            };
          }),
        };
      }
      return answer;
    },

    /**
     * The Overview's tallies of `subAccountIds` over `edges` (its days' first instants and
     * the last one's end), when the index holds every day they cover: each sub account synced
     * through the history window and the days within it. Then starts the refreshes of open
     * days that are due, as a list read does, and waits for them (a few pages); never a first
     * sync. Undefined when the index cannot answer (days older than it keeps, a first sync not
     * done): the Overview then reads the card service itself. `updatedAt`: when the oldest
     * open day was read.
     */
    async overviewTallies(
      who: Who,
      subAccountIds: string[],
      edges: readonly number[],
      breakdownFrom: number,
      refresh: boolean,
    ): Promise<{ tallies: OverviewTallies; updatedAt?: number } | undefined> {
      const start = edges[0];
      const end = edges.at(-1);
      if (start === undefined || end === undefined) return undefined;
      const now = clock.now();
      const oldestKept = utcDay(now - (INDEX_HISTORY_DAYS - 1) * DAY_MS);
      if (utcDay(start) < oldestKept) return undefined;
      const store = await deps.stores.index();
      const lastDay = utcDay(Math.min(end - 1, now));
      const openFrom = utcDay(now - INDEX_SETTLING_DAYS * 86_400_000);
      /** When the oldest open day of the span was read; undefined when a day is missing. */
      const readAt = (walkedOf: Map<string, Map<string, number>>) => {
        let oldest = Number.POSITIVE_INFINITY;
        for (const id of subAccountIds) {
          const walked = walkedOf.get(id) ?? new Map<string, number>();
          for (let day = utcDay(start); day <= lastDay; day = utcDay(Date.parse(day) + DAY_MS)) {
            const at = walked.get(day);
            if (at === undefined) return undefined;
            if (day >= openFrom && at < oldest) oldest = at;
          }
        }
        return oldest;
      };
      // A day not in the index yet: the Overview walks, and starts no first sync (a person
      // landing on the Overview would have both walk the card service at once, and their
      // pages crowd out people's own requests); the Transactions screen and the cards list do.
      const walked = await store.walkedDaysOf(subAccountIds);
      let updatedAt = readAt(walked);
      if (updatedAt === undefined) return undefined;
      // Synced: the open days are read again when due, as for a list, and waited for.
      const fresh = await freshness(subAccountIds, who.requestId, refresh, walked);
      if (fresh.syncing) {
        // Open days being read again: a few pages; the answer waits for them, as a walk's does.
        await Promise.allSettled(subAccountIds.map((id) => syncs.find(id)?.done));
        updatedAt = readAt(await store.walkedDaysOf(subAccountIds));
        if (updatedAt === undefined) return undefined;
      }
      const tallies = await store.overviewTallies(subAccountIds, edges, breakdownFrom);
      return Number.isFinite(updatedAt) ? { tallies, updatedAt } : { tallies };
    },

    /**
     * The cards that spend from a sub account (a row of theirs in it, in the index), as the
     * card directory has them, with the cards list's search, status filter and order
     * (`orderCards`: spend and utilisation as each card's row shows them).
     */
    async cardsOf(who: Who, input: IndexCardListQuery): Promise<IndexCardList> {
      const fresh = await freshness([input.subAccountId], who.requestId, false);
      const store = await deps.stores.index();
      const inSub = await store.cardsOfSubAccount(input.subAccountId);
      await deps.cardDirectory.ready();
      const owners = await deps.stores.cardOwners();
      const owned = await owners.cardsOf(input);
      const cards = cardsMatching(
        deps.cardDirectory.cards().filter((card) => inSub.has(storable(card.id))),
        { ...input, cardIds: owned },
      );
      const utilization = serviceSort(input.sort)
        ? undefined
        : await utilizationsOf(
            store,
            cards.map((card) => card.id),
          );
      const items = await owners.withOwnership(
        orderCards(cards, input, (cardId) => utilization?.get(cardId)),
      );
      return { items, freshness: fresh };
    },

    /**
     * What the month close still needs over every sub account and the period, of the money that
     * moved or will (docs/money.md: posted or pending): the counts (and money out) of the list's
     * "to review", "no category", "missing receipt" and "missing memo" filters, the last two by
     * the close policy (a `receiptFromCents` asked for overrides its size; a policy without
     * receipts or memo categories counts none). Declined, canceled and failed rows are counted
     * apart (declined, attempted); reversed and returned ones in none.
     */
    async attention(
      who: Who,
      input: { from?: number; to?: number; receiptFromCents?: number },
    ): Promise<Attention> {
      const { ids } = await subAccountsOf(who, {});
      const fresh = await freshness(ids, who.requestId, false);
      const [store, policy] = await Promise.all([
        deps.stores.index(),
        deps.stores.closePolicy().then((s) => s.get()),
      ]);
      const { receiptFromCents = policy.receiptFromCents, ...when } = input;
      const memoCategoryIds = policy.memoCategoryIds;
      const period = filterOf(when, ids);
      const moved = statusesOf(['posted', 'pending']);
      const [missingReceipt, missingMemo, unreviewed, uncategorized, attempted] = await Promise.all(
        [
          receiptFromCents === null
            ? undefined
            : { hasReceipt: false, statuses: moved, minCents: receiptFromCents },
          memoCategoryIds.length === 0
            ? undefined
            : { accountIds: memoCategoryIds, memo: 'missing' as const, statuses: moved },
          { reviewed: false, statuses: moved },
          { noAccount: true, statuses: moved },
          { statuses: statusesOf(['attempted']) },
        ].map((more) => (more ? store.summary({ ...period, ...more }) : undefined)),
      );
      // Money out: card charges and other payments (the rows are all posted or pending).
      const count = (s: IndexSummary | undefined) => ({
        count: s?.count ?? 0,
        debitCents: 0 - ((s?.buckets.card.cents ?? 0) + (s?.buckets.payment.cents ?? 0)),
      });
      return {
        missingReceipt: { ...count(missingReceipt), fromCents: receiptFromCents },
        missingMemo: { ...count(missingMemo), categoryIds: memoCategoryIds },
        unreviewed: count(unreviewed),
        uncategorized: count(uncategorized),
        declined: {
          count: attempted?.count ?? 0,
          cents: attempted?.buckets.attempted.cents ?? 0,
        },
        freshness: fresh,
      };
    },

    /**
     * The merchant a descriptor names and its other descriptors in the index, the most used
     * first (`merchants.ts`: a town not on its list is taken off where the name without it is
     * a merchant of the index). The index's descriptors are grouped at most once a minute per
     * process: a descriptor synced since joins its merchant within a minute.
     */
    async merchant(who: Who, input: { descriptor: string }): Promise<IndexMerchant> {
      const { ids } = await subAccountsOf(who, {});
      const fresh = await freshness(ids, who.requestId, false);
      let merchants = await merchantGroups();
      // A text synced since the grouping was made (the detail of a new transaction).
      if (!merchants.hasText(input.descriptor)) {
        merchants = await merchantGroups(MERCHANT_GROUPS_MIN_MS);
      }
      const asked = merchants.nameOf(input.descriptor);
      const all = merchants.textsOf(asked.key);
      const descriptors = all.slice(0, MERCHANT_DESCRIPTORS).map((d) => d.text);
      const named = merchants.namedOf(asked.key);
      return {
        key: asked.key,
        name: asked.name,
        descriptors: descriptors.length > 0 ? descriptors : [input.descriptor],
        more: Math.max(0, all.length - MERCHANT_DESCRIPTORS),
        ...(named ? { named } : {}),
        freshness: fresh,
      };
    },

    /**
     * An admin's name for a merchant: every group of descriptors going by `merchant` goes by
     * `name` (another merchant's: the two are one). Audited with the groups it moved, in the
     * change's transaction; a merchant the index does not know is a 404, audited as refused.
     */
    async nameMerchant(who: Who, change: MerchantNameChange): Promise<MerchantNamed> {
      refuseCardNumberInMerchant(change.merchant, change.name);
      const key = merchantKeyOf(change.merchant);
      const to = { name: change.name.trim(), nameKey: merchantKeyOf(change.name) };
      const merchants = await merchantGroups(MERCHANT_GROUPS_MIN_MS);
      const base = merchantRecord(who, 'merchant.name', key);
      const store = await deps.stores.merchantNames();
      const done = await auditedChange(
        deps,
        (audited) =>
          store.name(
            key,
            merchants.hasGroup(key),
            to,
            who.actor.email,
            new Date(clock.now()),
            audited,
          ),
        async ({ groups }) => [
          {
            ...base,
            outcome: 'success',
            before: { name: change.merchant.trim() },
            after: { name: to.name },
            detail: `${groups.length} group${groups.length === 1 ? '' : 's'} of descriptors: ${groups.join(', ')}`,
          },
        ],
      );
      if (done.groups.length === 0) throw await unknownMerchant(base, change.merchant);
      return { key: to.nameKey, name: to.name, groups: done.groups.length };
    },

    /** Every group an admin named `merchant` goes by its own name again; audited likewise. */
    async unnameMerchant(who: Who, input: MerchantNameReset): Promise<MerchantNamed> {
      refuseCardNumberInMerchant(input.merchant);
      const key = merchantKeyOf(input.merchant);
      const base = merchantRecord(who, 'merchant.unname', key);
      const store = await deps.stores.merchantNames();
      const done = await auditedChange(
        deps,
        (audited) => store.unname(key, audited),
        async ({ groups, before }) => [
          {
            ...base,
            outcome: 'success',
            before: { name: before[0]?.name ?? input.merchant.trim() },
            detail: `${groups.length} group${groups.length === 1 ? '' : 's'} of descriptors: ${groups.join(', ')}`,
          },
        ],
      );
      const [first] = done.before;
      if (!first) throw await unknownMerchant(base, input.merchant, 'named');
      return { key, name: first.name, groups: done.groups.length };
    },

    /**
     * The merchant each descriptor names, as `merchant()` names it (the index's texts grouped
     * once a minute; one the index does not hold yet, by itself and the index's merchants).
     */
    async merchantNames(descriptors: readonly string[]): Promise<Map<string, MerchantName>> {
      const merchants = await merchantGroups();
      return new Map(descriptors.map((d) => [d, merchants.nameOf(d)]));
    },

    /** Every card with a transaction and the sub accounts it spends from (its rows say). */
    async cardSubAccounts(who: Who): Promise<CardSubAccounts> {
      const { ids } = await subAccountsOf(who, {});
      const fresh = await freshness(ids, who.requestId, false);
      const store = await deps.stores.index();
      const cards = await store.cardSubAccounts();
      return {
        cards: [...cards].map(([cardId, subAccountIds]) => ({ cardId, subAccountIds })),
        freshness: fresh,
      };
    },

    /**
     * A card's money: the sub accounts its transactions are in, its spend (debits of the spend
     * statuses) in the current window of its utilisation limit (the card as the card service
     * has it now; `utilization-window.ts` reads the window), and its latest transactions.
     */
    async card(who: Who, cardId: string): Promise<IndexCard> {
      const ctx = { requestId: who.requestId, trace: who.trace, role: who.actor.role };
      const [card, { ids }] = await Promise.all([
        upstream.getCard(ctx, cardId),
        subAccountsOf(who, {}),
      ]);
      const fresh = await freshness(ids, who.requestId, false);
      const store = await deps.stores.index();
      const limit = card.spendingConstraint?.spendingRule?.utilizationLimit;
      const window = limit ? currentUtilizationWindow(limit, clock.now()) : undefined;
      const [subAccountIds, recent, spent] = await Promise.all([
        store.subAccountsOfCard(cardId),
        store.page({ cardIds: [cardId] }, { sort: 'date', direction: 'desc' }, CARD_RECENT),
        window ? store.summary({ cardIds: [cardId], from: window.from, to: window.to }) : undefined,
      ]);
      await deps.cardDirectory.ready();
      const answer: IndexCard = {
        subAccountIds,
        recent: recent.items.map((t) => ({
          subAccountId: t.subAccountId,
          ...toApiTransaction(asUpstream(t), deps.cardDirectory),
        })),
        freshness: fresh,
      };
      // The card's spend in the window as the definition says (docs/money.md): its settled,
      // pending and disputed charges less its refunds, what the limit counts.
      const cardSpend = spent ? netCardSpendCents(spent.buckets) : 0;
      if (limit) answer.utilization = utilizationOf(limit, window, cardSpend);
      return answer;
    },

    /**
     * The cards list's money for the cards it shows: each card's sub accounts and its spend in
     * the current window of its utilisation limit as the card directory has it
     * (`utilizationsOf`). The cards list's sort by spend reads these same figures.
     */
    async cardsMoney(who: Who, cardIds: string[]): Promise<CardsMoney> {
      const { ids } = await subAccountsOf(who, {});
      const fresh = await freshness(ids, who.requestId, false);
      const store = await deps.stores.index();
      await deps.cardDirectory.ready();
      const unique = [...new Set(cardIds)];
      const [subAccounts, utilization] = await Promise.all([
        store.cardSubAccounts(unique),
        utilizationsOf(store, unique),
      ]);
      return {
        cards: unique.map((cardId) => {
          const u = utilization.get(cardId);
          return {
            cardId,
            subAccountIds: subAccounts.get(cardId) ?? [],
            ...(u ? { utilization: u } : {}),
          };
        }),
        freshness: fresh,
      };
    },

    /**
     * The receipts of the filtered set, in its order, for a ZIP: each named by the day (in the
     * export's zone), the merchant and the amount (`2026-11-03 Figma -64.99.pdf`, `(2)` when a
     * name repeats). Counted and sized first, in one statement: past `deps.receiptsZip`'s caps
     * the ZIP is refused (422) before any byte. Then listed as they stand now (a receipt added
     * later is not in the ZIP, one removed meanwhile is left out), their bytes read one at a
     * time as the archive asks for them.
     */
    async receiptFiles(
      who: Who,
      input: IndexSearchInput,
      signal: AbortSignal,
      times: CsvRowOptions['times'],
    ): Promise<AsyncGenerator<ZipFile>> {
      const caps = deps.receiptsZip ?? DEFAULT_RECEIPTS_ZIP_CAPS;
      const { ids } = await subAccountsOf(who, input);
      const store = await deps.stores.index();
      const notesStore = await deps.stores.notes();
      const filter = { ...(await filterFor(input, ids)), hasReceipt: true };
      checkReceiptsZipCaps(await store.receiptTotals(filter), caps);
      const order = orderOf(input);
      const taken = new Set<string>();
      const unique = (stem: string, ext: string) => {
        let name = `${stem}.${ext}`;
        for (let n = 2; taken.has(name.toLowerCase()); n++) name = `${stem} (${n}).${ext}`;
        taken.add(name.toLowerCase());
        return name;
      };
      const planned: PlannedReceipt[] = [];
      const pages = indexPages((cursor) => store.page(filter, order, MAX_INDEX_PAGE, cursor));
      for await (const page of pages) {
        const byId = new Map(page.items.map((t) => [t.id, t]));
        const receipts = await notesStore.receiptsOf(page.items.map((t) => t.id));
        const inOrder = page.items.flatMap((t) => receipts.filter((r) => r.transactionId === t.id));
        for (const receipt of inOrder) {
          const t = byId.get(receipt.transactionId) as IndexedTransaction;
          const day = times.format(t.at).slice(0, 10);
          const merchant = fileNamePart(t.merchant ?? t.description);
          const ext = receipt.fileName.split('.').pop() ?? 'bin';
          planned.push({
            transactionId: receipt.transactionId,
            receiptId: receipt.id,
            name: unique(`${day} ${merchant} ${centsToDollarInput(t.amountCents)}`, ext),
            at: new Date(receipt.uploadedAt),
            byteSize: receipt.byteSize,
          });
        }
      }
      // Receipts added between the count and the list count too.
      checkReceiptsZipCaps(totalsOf(planned), caps);
      return plannedFiles(
        planned,
        (p) => notesStore.receiptFile(p.transactionId, p.receiptId),
        signal,
      );
    },

    /**
     * Every row of the filtered set as CSV lines, in the screen's order, read from the index a
     * page of `MAX_INDEX_PAGE` at a time (keyset: rows synced meanwhile neither repeat nor
     * shift). With several sub accounts each row starts with its sub account's name and id.
     * Starts no sync: the file is the set the screen shows.
     *
     * A `part` of an accounting file is a slice by place of the posted set the parts were
     * planned from (`planned`: the screen's posted rows and cents). That set is counted again
     * here, by the store's `postedTotal` (the totals' `summary.posted`, read alone), before any
     * byte (another figure: 409 `matching_changed`), and once more after the part's last row,
     * before its receipt: a sync meanwhile moves rows from one place to another, so the part
     * fails (the download breaks off with no receipt) rather than repeat a row or miss one.
     */
    async exportRows(
      who: Who,
      input: IndexSearchInput,
      signal: AbortSignal,
      format: CsvRowOptions,
      layout: ExportFormat = 'card-console',
      asked?: ExportPart,
    ): Promise<{ rows: ExportRows; columns: readonly string[]; subAccountName?: string }> {
      const { ids, names } = await subAccountsOf(who, input);
      const several = ids.length !== 1;
      const store = await deps.stores.index();
      const notesStore = await deps.stores.notes();
      const categories = new Map((await notesStore.categories()).map((c) => [c.id, c]));
      // The accountant's files hold posted rows only (accounting-files.ts).
      const filtered = await filterFor(input, ids);
      const filter = layout === 'card-console' ? filtered : postedOnly(filtered);
      const part = asked?.part;
      // The posted set as it is now, by the figure the screen's totals show.
      const unchanged = async () => {
        if (asked === undefined) return;
        const now = await store.postedTotal(filtered);
        if (now.count !== asked.planned.count || now.cents !== asked.planned.cents) {
          throw postedChanged(asked.planned, now);
        }
      };
      await unchanged();
      // Each row's merchant by name (as the lists group it, with the admins' names).
      const merchants = await merchantGroups();
      const merchantNameOf = (t: IndexedTransaction) =>
        t.merchant === undefined ? undefined : merchants.nameOf(t.merchant).name || undefined;
      const order = orderOf(input);
      // Part N of a file too long for its importer: the posted rows from (N-1)×limit on, that many.
      const perFile = part === undefined ? undefined : ACCOUNTING_ROWS_PER_FILE[layout];
      const first = perFile === undefined || part === undefined ? 0 : (part - 1) * perFile;
      const end = perFile === undefined ? Number.POSITIVE_INFINITY : first + perFile;
      let pages = 0;
      let rowsOut = 0;
      let seen = 0;
      async function* chunks(): AsyncGenerator<Buffer> {
        const reads = indexPages((cursor) => store.page(filter, order, MAX_INDEX_PAGE, cursor));
        for await (const read of reads) {
          if (signal.aborted) return;
          pages++;
          const from = seen;
          seen += read.items.length;
          if (seen <= first) continue;
          const page = {
            ...read,
            items: read.items.slice(Math.max(0, first - from), Math.max(0, end - from)),
          };
          const pageIds = page.items.map((t) => t.id);
          const { notes, receipts } = await notesStore.notesOf(pageIds);
          const records = page.items.flatMap((t) => {
            if (layout !== 'card-console') {
              const subAccountName = names.get(t.subAccountId);
              const context = {
                notes: notes.get(t.id),
                categories,
                subAccountName,
                merchantName: merchantNameOf(t),
                format,
              };
              return accountingLines(layout, t, context);
            }
            const record = [
              ...toCsvRecord(asUpstream(t), format),
              ...notesCsvCells(notes.get(t.id), categories, format.times, receipts.get(t.id) ?? 0),
              exportText(merchantNameOf(t) ?? ''),
            ];
            if (!several) return [record];
            const name = names.get(t.subAccountId);
            return [[exportText(name ?? ''), exportText(t.subAccountId), ...record]];
          });
          rowsOut += records.length;
          if (records.length > 0) yield Buffer.from(csvLines(records));
          if (seen >= end) break;
        }
        // Still the set the part was cut from (else no receipt: the download is not whole).
        if (!signal.aborted) await unchanged();
      }
      const name = several ? undefined : names.get(ids[0] as string);
      return {
        rows: { chunks: chunks(), pagesRead: () => pages, rowsOut: () => rowsOut },
        columns:
          layout === 'card-console'
            ? [
                ...(several ? ['sub account', 'sub account id'] : []),
                ...csvColumns,
                ...notesCsvColumns,
                MERCHANT_NAME_COLUMN,
              ]
            : ACCOUNTING_COLUMNS[layout],
        ...(name === undefined ? {} : { subAccountName: name }),
      };
    },
  };
}

/** Which part of an accounting file, and the posted set the parts were planned from. */
export interface ExportPart {
  part: number;
  planned: { count: number; cents: number };
}

/** 409: the posted set is not the one the parts were planned from; every part again. */
function postedChanged(
  then: { count: number; cents: number },
  now: { count: number; cents: number },
): AppError {
  const rows = (n: number) => `${n.toLocaleString('en-US')} ${n === 1 ? 'row' : 'rows'}`;
  return new AppError(
    409,
    'matching_changed',
    `The posted rows changed since the parts were offered: ${rows(then.count)}, ${formatCents(then.cents)} then; ${rows(now.count)}, ${formatCents(now.cents)} now. Download every part again, in place of any part imported already.`,
  );
}

/** The transaction index as a walk's source: its failures are the BFF's own. */
const transactionIndex: PageSource = {
  name: 'the transaction index',
  repeated: { status: 500, code: 'internal_error' },
  tooLong: { status: 500, code: 'internal_error' },
  timeout: { status: 503, code: 'store_unavailable' },
};

/**
 * Every page of one keyset walk of the index (`read` with the cursor the last page gave), by the
 * one paginator: bounded by `WALK_LIMITS.indexExport`, the next page read while this one is used.
 */
function indexPages<P extends { next?: string }>(
  read: (cursor?: string) => Promise<P>,
): AsyncGenerator<P> {
  return paginate({
    first: () => read(),
    next: read,
    cursorOf: (page) => page.next,
    budget: walkBudget(WALK_LIMITS.indexExport, { source: transactionIndex }),
  });
}

/** The query's filter over `subAccountIds`. */
function filterOf(input: IndexSearchInput, subAccountIds: string[]): IndexFilter {
  return {
    subAccountIds,
    ...(input.q === undefined ? {} : { text: input.q }),
    ...(input.merchant ? { merchants: input.merchant } : {}),
    ...categoryMembers(input),
    ...(input.status ? { statuses: input.status } : {}),
    ...(input.cardId ? { cardIds: input.cardId } : {}),
    ...(input.owner ? { ownerKeys: input.owner.map(ownershipKeyOf) } : {}),
    ...(input.team ? { teamKeys: input.team.map(ownershipKeyOf) } : {}),
    ...(input.declineReason ? { declineReasons: input.declineReason } : {}),
    ...(input.noDeclineReason ? { noDeclineReason: true } : {}),
    ...(input.card === undefined ? {} : { withCard: input.card === 'with' }),
    ...(input.minCents === undefined ? {} : { minCents: input.minCents }),
    ...(input.maxCents === undefined ? {} : { maxCents: input.maxCents }),
    ...(input.from === undefined ? {} : { from: input.from }),
    // The API's `to` is included, as the card service's; the store's is not.
    ...(input.to === undefined ? {} : { to: input.to + 1 }),
    ...(input.review === undefined ? {} : { reviewed: input.review === 'reviewed' }),
    ...(input.account
      ? {
          accountIds: input.account.filter((a) => a !== 'none'),
          noAccount: input.account.includes('none'),
        }
      : {}),
    ...(input.tag ? { tags: input.tag } : {}),
    ...(input.receipt === undefined ? {} : { hasReceipt: input.receipt === 'attached' }),
    ...(input.memo === undefined ? {} : { memo: input.memo }),
  };
}

/** The notes columns the index's export adds after the transaction's own. */
export const notesCsvColumns = [
  'account code',
  'accounting category',
  'memo',
  'tags',
  'receipts',
  'review',
  'reviewed by',
  'reviewed at',
] as const;

/** A row's notes as the export's notes columns (empty cells for a transaction without notes). */
function notesCsvCells(
  notes: Notes | undefined,
  categories: ReadonlyMap<string, AccountingCategory>,
  times: CsvRowOptions['times'],
  receipts: number,
): string[] {
  const category = notes?.categoryId ? categories.get(notes.categoryId) : undefined;
  const review = notes?.review;
  return [
    category?.code ?? '',
    category?.name ?? '',
    notes?.memo ?? '',
    (notes?.tags ?? []).join(', '),
    String(receipts),
    review?.state ?? 'unreviewed',
    review?.state === 'reviewed' ? review.by : '',
    review?.state === 'reviewed' ? times.format(review.at) : '',
  ].map(exportText);
}

/**
 * Text as a part of a file name: no path, control or reserved characters, card numbers masked
 * (once cleaned: what it turns into spaces may have stood between digit groups, and a merchant
 * an older build kept may hold one), at most 60 long.
 */
function fileNamePart(text: string): string {
  const clean = maskCardNumbers(
    text
      .replace(/[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}/\\:*?"<>|]/gu, ' ')
      .replace(/\s+/g, ' ')
      .trim(),
  )
    .replace(/^\.+/, '')
    .slice(0, 60)
    .trim();
  return clean || 'transaction';
}

/** What the list shows of a transaction with no notes written yet. */
const NO_NOTES = { memo: '', categoryId: null, tags: [] as string[], reviewed: false };

/** What the list shows of a transaction's notes. */
const listNotes = (a: Notes, receipts: number) => ({
  memo: a.memo,
  categoryId: a.categoryId,
  tags: a.tags,
  reviewed: a.review.state === 'reviewed',
  receipts,
});

/**
 * A merchant's name must not hold a card number: refused before anything is read or recorded
 * (the trail refuses one, which would answer as if it were down), as a merchant rule's is.
 */
function refuseCardNumberInMerchant(...texts: string[]): void {
  if (texts.some(holdsCardNumber)) {
    throw new AppError(
      400,
      'invalid_body',
      'A merchant or its name must not hold a card number. Remove it and try again.',
    );
  }
}

function orderOf(input: IndexSearchInput): IndexOrder {
  return { sort: input.sort ?? 'date', direction: input.direction ?? 'desc' };
}

export type IndexSearchService = ReturnType<typeof createIndexSearchService>;

const services = new WeakMap<IndexStores, IndexSearchService>();

/**
 * The search service of `deps.stores`, one per database: the transactions list and the
 * Overview read through the same one, so their reads join the same syncs (one job kind).
 */
export function indexSearchOf(deps: IndexSearchDeps): IndexSearchService {
  let service = services.get(deps.stores);
  if (!service) {
    service = createIndexSearchService(deps);
    services.set(deps.stores, service);
  }
  return service;
}
