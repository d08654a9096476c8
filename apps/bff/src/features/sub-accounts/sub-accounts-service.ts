import { createHash } from 'node:crypto';
import {
  type SubAccountCreated,
  type SubAccountPage,
  subAccountNameKey,
} from '@card-console/shared/api/sub-accounts';
import type { UpstreamSubAccount } from '@card-console/shared/upstream/sub-account';
import { AppError } from '../../core/app-error';
import type { Clock } from '../../core/clock';
import {
  AuditUnavailableError,
  appendOrRefuse,
  appendOutcome,
} from '../../platform/audit/audited-change';
import { LockWaitTimeoutError } from '../../platform/locks/keyed-lock';
import { containsCardNumber } from '../../platform/security/card-numbers';
import type { Who } from '../../platform/sessions/who';
import type { CallContext, UpstreamClient } from '../../upstream/client';
import { walkBudget } from '../../upstream/paginate';
import { maskDigitRuns } from '../../upstream/safe-message';
import { subAccountPages } from '../../upstream/sub-account-pages';
import { WALK_LIMITS } from '../../upstream/walk-limits';
import type { FeatureDeps } from '../feature-deps';
import { toApiSubAccount } from './sub-account-mapper';

/** When a person may try again after another create of the same name held it too long. */
const BUSY_RETRY_AFTER_SECONDS = 2;

/**
 * The first sub account `match` accepts, reading the list page by page until one does, under
 * the sub-account list's limits (`WALK_LIMITS.subAccounts`): a list that never ends is a clear
 * 502 or 504, never a wait without end. `fresh`: no page joins a read already in flight
 * (which may predate the caller's lock).
 */
async function findSubAccount(
  upstream: UpstreamClient,
  ctx: CallContext,
  match: (sub: UpstreamSubAccount) => boolean,
  options: { fresh?: boolean; now?: () => number } = {},
): Promise<UpstreamSubAccount | undefined> {
  const budget = walkBudget(WALK_LIMITS.subAccounts, options.now ? { now: options.now } : {});
  // Usually found early: no page asked for ahead of need.
  const pages = subAccountPages(upstream, ctx, {
    budget,
    fresh: options.fresh === true,
    prefetch: false,
  });
  for await (const page of pages) {
    const found = page.items.find(match);
    if (found) return found;
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
    return (await findSubAccount(upstream, ctx, (sub) => sub.id === id))?.name;
  } catch {
    return undefined;
  }
}

/**
 * Whether the card service lists a sub account with this id (read fresh, so one just made is
 * found). A service that cannot answer throws: its failure is never taken for "none".
 */
export async function subAccountExists(
  upstream: UpstreamClient,
  ctx: CallContext,
  id: string,
): Promise<boolean> {
  return (
    (await findSubAccount(upstream, ctx, (sub) => sub.id === id, { fresh: true })) !== undefined
  );
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
 * a PostgreSQL lock agree), and inside that the whole list is read afresh: a name created by the
 * create before is always seen. A sub account created outside Card Console between that read
 * and the POST can still collide; the service is the only place that could close that gap.
 * That read is bounded (`WALK_LIMITS.subAccounts`): a list that never ends refuses the create
 * with a clear error (audited), instead of holding the name's lock without end.
 *
 * The card service cannot take a sub account back: the create is recorded as `started` before
 * the POST (a trail that cannot take it stops the create: 503 `audit_unavailable`), then its
 * outcome; a lost outcome leaves the sub account created (201) and is logged.
 */
export function createSubAccountsService({
  upstream,
  audit,
  locks,
  clock,
  logger,
}: Pick<FeatureDeps, 'upstream' | 'audit' | 'locks'> &
  Partial<Pick<FeatureDeps, 'logger'>> & { clock?: Pick<Clock, 'now'> }) {
  const trail = {
    audit,
    logger: logger ?? { error: () => {} },
  };
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
      // Refused before anything is asked: the card service would keep it and show it to anyone.
      if (containsCardNumber(body.name)) {
        throw new AppError(
          400,
          'invalid_body',
          'name: must not contain a card number (13-19 digits that pass the Luhn check, however they are grouped)',
        );
      }
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
      let started = false;
      try {
        created = await locks.run(lockKey, async () => {
          const same = await findSubAccount(
            upstream,
            ctx,
            (sub) => subAccountNameKey(sub.name) === key,
            { fresh: true, ...(clock ? { now: () => clock.now() } : {}) },
          );
          if (same) throw nameTaken(same.name);
          await appendOrRefuse(audit, {
            ...base,
            outcome: 'started',
            detail: `name "${maskDigitRuns(body.name)}"`,
          });
          started = true;
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
        // Not recorded as started: nothing was sent, and the trail cannot take a record now.
        if (error instanceof AuditUnavailableError) throw error;
        const code = error instanceof AppError ? error.code : 'internal_error';
        const failed = {
          ...base,
          outcome: 'failed',
          detail: `name "${maskDigitRuns(body.name)}": ${code}`,
        } as const;
        if (started) await appendOutcome(trail, failed);
        else await audit.append(failed);
        throw error;
      }
      await appendOutcome(trail, {
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
