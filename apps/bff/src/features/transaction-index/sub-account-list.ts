// The sub-account list an "all sub accounts" read of the index covers, kept for the index's
// refresh age (`INSIGHTS_REFRESH_SECONDS`) so such a read costs no upstream call: served as
// kept while a newer one is read in the background (lru-cache's stale-while-revalidate fetch),
// read again at once when a person presses Refresh. A sub account created meanwhile joins the
// "all" lists within that age (it has no transaction yet); naming it in the filter reads it
// at once.
import type { UpstreamSubAccount } from '@card-console/shared/upstream/sub-account';
import { LRUCache } from 'lru-cache';
import type { Clock } from '../../core/clock';
import type { CallContext, UpstreamClient } from '../../upstream/client';
import { walkBudget } from '../../upstream/paginate';
import { allSubAccounts } from '../../upstream/sub-account-pages';
import { WALK_LIMITS } from '../../upstream/walk-limits';

type Read = (ctx: CallContext) => Promise<UpstreamSubAccount[]>;

export interface SubAccountList {
  /** Every sub account; `fresh` reads the card service now (Refresh). */
  all(ctx: CallContext, options?: { fresh?: boolean }): Promise<UpstreamSubAccount[]>;
}

const KEY = 'all';

export function createSubAccountList(read: Read, maxAgeMs: number): SubAccountList {
  // An age of 0 reads on every request (lru-cache takes a ttl of 0 as "for ever").
  if (maxAgeMs <= 0) return { all: (ctx) => read(ctx) };
  const cache = new LRUCache<typeof KEY, UpstreamSubAccount[], CallContext>({
    max: 1,
    ttl: maxAgeMs,
    allowStale: true,
    noDeleteOnStaleGet: true,
    allowStaleOnFetchRejection: true,
    fetchMethod: (_key, _stale, { context }) => read(context),
  });
  return {
    async all(ctx, options) {
      const list = await cache.fetch(KEY, {
        context: ctx,
        ...(options?.fresh ? { forceRefresh: true, allowStale: false } : {}),
      });
      // fetchMethod never resolves undefined; a failed first read rejects.
      return list ?? read(ctx);
    },
  };
}

/**
 * The card service's sub-account list, kept for `maxAgeMs`: one per app, so the index's "all
 * sub accounts" reads and the balance alerts (which take each synced sub account's balance from
 * it) share one read.
 */
export function upstreamSubAccountList(
  upstream: UpstreamClient,
  clock: Clock,
  maxAgeMs: number,
): SubAccountList {
  return createSubAccountList(
    (ctx) =>
      allSubAccounts(
        upstream,
        ctx,
        walkBudget(WALK_LIMITS.subAccounts, { now: () => clock.now() }),
      ),
    maxAgeMs,
  );
}
