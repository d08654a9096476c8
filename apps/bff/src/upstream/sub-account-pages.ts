import type { ListEnvelope } from '@card-console/shared/upstream/common';
import type { UpstreamSubAccount } from '@card-console/shared/upstream/sub-account';
import type { CallContext, UpstreamClient } from './client';
import { paginate, type WalkBudget } from './paginate';

/**
 * The sub-account list, page by page (`paginate`), as the Overview, a limit preview and the
 * name check before a create read it: under `budget` (`WALK_LIMITS.subAccounts`, or a part of
 * a larger walk's budget), aborted with `ctx.signal`. `fresh`: no page joins a read already in
 * flight (which may predate the caller's lock). `prefetch`: ask for the next page before this
 * one is looked at (default yes; a search that usually stops early says no).
 */
export function subAccountPages(
  upstream: UpstreamClient,
  ctx: CallContext,
  options: { budget: WalkBudget; fresh?: boolean; prefetch?: boolean },
): AsyncGenerator<ListEnvelope<UpstreamSubAccount>, void, undefined> {
  const read = options.fresh ? { fresh: true } : undefined;
  return paginate({
    first: () => upstream.listSubAccounts(ctx, {}, read),
    next: (cursor) => upstream.listSubAccounts(ctx, { cursor }, read),
    cursorOf: (page) => page.metadata.nextCursor,
    keysOf: (page) => page.items.map((s) => s.id),
    budget: options.budget,
    ...(options.prefetch === undefined ? {} : { prefetch: options.prefetch }),
    ...(ctx.signal ? { signal: ctx.signal } : {}),
  });
}

/** Every sub account, in the service's order (see `subAccountPages`). */
export async function allSubAccounts(
  upstream: UpstreamClient,
  ctx: CallContext,
  budget: WalkBudget,
): Promise<UpstreamSubAccount[]> {
  const out: UpstreamSubAccount[] = [];
  for await (const page of subAccountPages(upstream, ctx, { budget })) out.push(...page.items);
  return out;
}
