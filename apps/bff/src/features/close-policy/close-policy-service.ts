import type { ClosePolicy, ClosePolicyUpdate } from '@card-console/shared/api/close-policy';
import { formatCents } from '@card-console/shared/money';
import { AppError, problemCode } from '../../core/app-error';
import type { NewAuditRecord } from '../../platform/audit/audit-store';
import { auditedChange, rethrowUnrecorded } from '../../platform/audit/audited-change';
import type { Who } from '../../platform/sessions/who';
import type { SqlQueryable } from '../../platform/sql/sql-engine';
import type { FeatureDeps } from '../feature-deps';
import { categoriesIn, categoryText } from '../notes';
import {
  ClosePolicyChangedError,
  type ClosePolicyStore,
  MemoCategoryUnusableError,
} from './close-policy-store';

export interface ClosePolicyDeps extends Pick<FeatureDeps, 'audit' | 'clock' | 'logger'> {
  /** The policy's store, made by the composition root over platform/sql's engine. */
  stores: { closePolicy(): Promise<ClosePolicyStore> };
}

type Snapshot = NonNullable<NewAuditRecord['before']>;
/** Where a record reads category names: the change's transaction, or the store. */
type Categories = Parameters<typeof categoryText>[0];

/** How an audit record shows a policy: `$75.00` or `none`, and the categories as `code name`. */
async function snapshot(
  categories: Categories,
  policy: Pick<ClosePolicy, 'receiptFromCents' | 'memoCategoryIds'>,
): Promise<Snapshot> {
  const names: string[] = [];
  for (const id of policy.memoCategoryIds) names.push((await categoryText(categories, id)) ?? id);
  return {
    receiptFrom: policy.receiptFromCents === null ? 'none' : formatCents(policy.receiptFromCents),
    memoCategories: names,
  };
}

/**
 * The store's refusal as the API's problem: 409 with the policy as it is when it moved on since
 * the change's version; 400 when the body names what cannot be used.
 */
function problemOf(error: unknown): unknown {
  if (error instanceof ClosePolicyChangedError) {
    return new AppError(
      409,
      'close_policy_changed',
      'Another admin changed the close policy since you opened it. Review it as it is now and save again.',
      { extensions: { current: error.current } },
    );
  }
  if (!(error instanceof MemoCategoryUnusableError)) return error;
  const [archived] = error.archived;
  if (error.missing.length > 0) {
    return new AppError(
      400,
      'invalid_body',
      `${error.missing.length === 1 ? 'One of the memo categories does' : `${error.missing.length} of the memo categories do`} not exist in the chart of accounts. Reload and choose again.`,
    );
  }
  return new AppError(
    400,
    'invalid_body',
    `${archived ? `${archived.code} ${archived.name}` : 'A memo category'} is archived. Choose current accounting categories for memos.`,
  );
}

/**
 * The close policy: everyone reads it (the month close's counts use it), admins change it, each
 * change on the version it was made on (409 `close_policy_changed` otherwise). A change and a
 * refused one are audited with before → after (or the values attempted), a change's record in
 * the change's own transaction (a change the trail cannot record is not made: 503
 * `audit_unavailable`, platform/audit/audited-change.ts). A save of the policy in force changes
 * nothing and records nothing.
 */
export function createClosePolicyService(deps: ClosePolicyDeps) {
  const store = () => deps.stores.closePolicy();
  return {
    async get(): Promise<ClosePolicy> {
      return (await store()).get();
    },

    async update(who: Who, change: ClosePolicyUpdate): Promise<ClosePolicy> {
      const base = {
        actor: who.actor.email,
        role: who.actor.role,
        action: 'closePolicy.update',
        target: 'close-policy',
        requestId: who.requestId,
      } as const;
      const s = await store();
      try {
        const { after } = await auditedChange(
          deps,
          (audited) => s.update(change, who.actor.email, new Date(deps.clock.now()), audited),
          async ({ before, after }, tx: SqlQueryable) => [
            {
              ...base,
              outcome: 'success',
              before: await snapshot(categoriesIn(tx), before),
              after: await snapshot(categoriesIn(tx), after),
            },
          ],
        );
        return after;
      } catch (caught) {
        rethrowUnrecorded(caught);
        const error = problemOf(caught);
        const current = caught instanceof ClosePolicyChangedError ? caught.current : await s.get();
        await deps.audit.append({
          ...base,
          outcome: 'failed',
          before: await snapshot(s, current),
          after: await snapshot(s, change),
          detail: problemCode(error),
        });
        throw error;
      }
    },
  };
}
