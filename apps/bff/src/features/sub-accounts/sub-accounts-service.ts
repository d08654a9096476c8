import { createHash } from 'node:crypto';
import {
  type SubAccountCreated,
  type SubAccountPage,
  subAccountNameKey,
} from '@card-console/shared/api/sub-accounts';
import type { UpstreamSubAccount } from '@card-console/shared/upstream/sub-account';
import { AppError } from '../../http/app-error';
import type { Who } from '../../http/context';
import type { FeatureDeps } from '../../http/deps';
import { LockWaitTimeoutError } from '../../platform/locks/keyed-lock';
import type { CallContext, UpstreamClient } from '../../upstream/client';
import { maskDigitRuns } from '../../upstream/safe-message';
import { toApiSubAccount } from './sub-account-mapper';

/** Pages a walk of the sub-account list reads at most (25 a page: 10,000 sub accounts). */
const MAX_PAGES = 400;
/** When a person may try again after another create of the same name held it too long. */
const BUSY_RETRY_AFTER_SECONDS = 2;

/**
 * Every sub account, page by page, until `stop` says so. `fresh`: no page joins a read already
 * in flight (which may predate the caller's lock).
 */
async function walkSubAccounts(
  upstream: UpstreamClient,
  ctx: CallContext,
  stop: (sub: UpstreamSubAccount) => boolean,
  options: { fresh?: boolean } = {},
): Promise<UpstreamSubAccount | undefined> {
  let cursor: string | undefined;
  for (let pages = 0; pages < MAX_PAGES; pages++) {
    const page = await upstream.listSubAccounts(ctx, cursor ? { cursor } : {}, options);
    const found = page.items.find(stop);
    if (found) return found;
    const next = page.metadata.nextCursor;
    if (next === undefined || next === cursor) return undefined;
    cursor = next;
  }
  return undefined;
}

/** The sub account's name, or undefined when it cannot be found (or the service fails). */
export async function subAccountName(
  upstream: UpstreamClient,
  ctx: CallContext,
  id: string,
): Promise<string | undefined> {
  try {
    return (await walkSubAccounts(upstream, ctx, (sub) => sub.id === id))?.name;
  } catch {
    return undefined;
  }
}

function nameTaken(existing: string): AppError {
  return new AppError(
    409,
    'sub_account_name_taken',
    `A sub account named “${existing}” already exists. Choose another name.`,
  );
}

/**
 * Creating a sub account: names are unique (`subAccountNameKey`: case, surrounding white
 * space and compatibility forms aside), which the card service does not enforce. Creates of
 * one name run one at a time (`locks`, keyed by a hash of the name's key, so replicas sharing
 * a Redis lock agree), and inside that the whole list is read afresh: a name created by the
 * create before is always seen. A sub account created outside Card Console between that read
 * and the POST can still collide; the service is the only place that could close that gap.
 */
export function createSubAccountsService({
  upstream,
  audit,
  locks,
}: Pick<FeatureDeps, 'upstream' | 'audit' | 'locks'>) {
  return {
    async list(who: Who, query: { cursor?: string }): Promise<SubAccountPage> {
      const page = await upstream.listSubAccounts(
        { requestId: who.requestId, trace: who.trace, role: who.actor.role },
        query,
      );
      const out: SubAccountPage = { items: page.items.map(toApiSubAccount) };
      if (page.metadata.nextCursor) out.nextCursor = page.metadata.nextCursor;
      return out;
    },

    /** Creates a sub account; the attempt is audited whatever the outcome. */
    async create(who: Who, body: { name: string }): Promise<SubAccountCreated> {
      const ctx = { requestId: who.requestId, trace: who.trace, role: who.actor.role };
      const base = {
        actor: who.actor.email,
        role: who.actor.role,
        action: 'subAccount.create',
        requestId: who.requestId,
      } as const;
      const key = subAccountNameKey(body.name);
      const lockKey = `subAccountName:${createHash('sha256').update(key).digest('hex').slice(0, 32)}`;
      let created: { id: string; name: string };
      try {
        created = await locks.run(lockKey, async () => {
          const same = await walkSubAccounts(
            upstream,
            ctx,
            (sub) => subAccountNameKey(sub.name) === key,
            { fresh: true },
          );
          if (same) throw nameTaken(same.name);
          return upstream.createSubAccount(ctx, body);
        });
      } catch (caught) {
        const error =
          caught instanceof LockWaitTimeoutError
            ? new AppError(
                503,
                'sub_account_busy',
                'Another sub account with this name is still being created. Try again in a moment.',
                { cause: caught, retryAfterSeconds: BUSY_RETRY_AFTER_SECONDS },
              )
            : caught;
        const code = error instanceof AppError ? error.code : 'internal_error';
        await audit.append({
          ...base,
          outcome: 'failed',
          detail: `name "${maskDigitRuns(body.name)}": ${code}`,
        });
        throw error;
      }
      await audit.append({
        ...base,
        outcome: 'success',
        subAccountId: created.id,
        target: created.id,
        detail: `name "${maskDigitRuns(created.name)}"`,
      });
      return { id: created.id, name: created.name };
    },
  };
}
