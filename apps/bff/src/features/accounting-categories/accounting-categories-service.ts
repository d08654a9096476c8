import type {
  AccountingCategory,
  AccountingCategoryCreate,
  AccountingCategoryPatch,
  ChartImportResult,
  MerchantRule,
  MerchantRuleCreate,
} from '@card-console/shared/api/accounting-categories';
import { AppError, problemCode } from '../../core/app-error';
import type { NewAuditRecord } from '../../platform/audit/audit-store';
import { auditedChange, rethrowUnrecorded } from '../../platform/audit/audited-change';
import { holdsCardNumber } from '../../platform/security/card-number-ids';
import type { Who } from '../../platform/sessions/who';
import type { SqlQueryable } from '../../platform/sql/sql-engine';
import type { FeatureDeps } from '../feature-deps';
import { categoriesIn, categoryText, type NotesStore, storeProblem } from '../notes';
import { chartFromCsv } from './chart-csv';

export interface AccountingCategoriesDeps extends Pick<FeatureDeps, 'audit' | 'clock' | 'logger'> {
  /** The chart and the merchant rules live in the notes' store, beside the notes that use them. */
  stores: { notes(): Promise<NotesStore> };
}

type Snapshot = NonNullable<NewAuditRecord['before']>;

/** A category's code or name may not carry a card number: refused before anything is saved. */
function refuseCardNumberNames(categories: readonly { code?: string; name?: string }[]): void {
  if (categories.some((c) => holdsCardNumber(`${c.code ?? ''} ${c.name ?? ''}`))) {
    throw new AppError(
      400,
      'invalid_body',
      'An account code or name must not hold a card number. Remove it and try again.',
    );
  }
}

/** Whether `patch` leaves each of the category's values as it is (code and name as trimmed). */
function changesNothing(category: AccountingCategory, patch: AccountingCategoryPatch): boolean {
  return (
    (patch.code === undefined || patch.code === category.code) &&
    (patch.name === undefined || patch.name === category.name) &&
    (patch.archived === undefined || patch.archived === category.archived)
  );
}

/**
 * The chart of accounts and the merchant rules that book new transactions to it. Admins change
 * them; every change and every refused one is audited with before → after, a change's record in
 * the change's own transaction (a change the trail cannot record is not made: 503
 * `audit_unavailable`, platform/audit/audited-change.ts).
 */
export function createAccountingCategoriesService(deps: AccountingCategoriesDeps) {
  const store = () => deps.stores.notes();
  const categorySnapshot = (c: AccountingCategory): Snapshot => ({
    code: c.code,
    name: c.name,
    archived: c.archived,
  });

  return {
    async rules(): Promise<MerchantRule[]> {
      return (await store()).rules();
    },

    async createRule(who: Who, input: MerchantRuleCreate): Promise<MerchantRule> {
      if (holdsCardNumber(input.merchant)) {
        throw new AppError(400, 'invalid_body', 'A merchant must not hold a card number.');
      }
      const base = {
        actor: who.actor.email,
        role: who.actor.role,
        action: 'merchantRule.create',
        requestId: who.requestId,
      } as const;
      const s = await store();
      const category = await categoryText(s, input.categoryId);
      try {
        return await auditedChange(
          deps,
          (audited) => s.createRule(input, who.actor.email, new Date(deps.clock.now()), audited),
          (rule) => [
            {
              ...base,
              target: rule.id,
              outcome: 'success',
              after: { merchant: rule.merchant, ...(category ? { category } : {}) },
            },
          ],
        );
      } catch (caught) {
        rethrowUnrecorded(caught);
        const error = storeProblem(caught);
        await deps.audit.append({
          ...base,
          outcome: 'failed',
          after: { merchant: input.merchant, ...(category ? { category } : {}) },
          detail: problemCode(error),
        });
        throw error;
      }
    },

    async deleteRule(who: Who, id: string): Promise<undefined> {
      const s = await store();
      const removed = await auditedChange(
        deps,
        (audited) => s.deleteRule(id, audited),
        async (rule, tx: SqlQueryable) => {
          if (!rule) return []; // nothing removed: no hook run
          const category = await categoryText(categoriesIn(tx), rule.categoryId);
          return [
            {
              actor: who.actor.email,
              role: who.actor.role,
              action: 'merchantRule.delete',
              target: rule.id,
              requestId: who.requestId,
              outcome: 'success',
              before: { merchant: rule.merchant, ...(category ? { category } : {}) },
            },
          ];
        },
      );
      if (!removed) throw new AppError(404, 'not_found', 'There is no such merchant rule.');
      return undefined;
    },

    async categories(): Promise<AccountingCategory[]> {
      return (await store()).categories();
    },

    async createCategory(who: Who, input: AccountingCategoryCreate): Promise<AccountingCategory> {
      refuseCardNumberNames([input]);
      const base = {
        actor: who.actor.email,
        role: who.actor.role,
        action: 'category.create',
        requestId: who.requestId,
      } as const;
      try {
        const s = await store();
        return await auditedChange(
          deps,
          (audited) => s.createCategory(input, new Date(deps.clock.now()), audited),
          (created) => [
            { ...base, target: created.id, outcome: 'success', after: categorySnapshot(created) },
          ],
        );
      } catch (caught) {
        rethrowUnrecorded(caught);
        const error = storeProblem(caught);
        await deps.audit.append({
          ...base,
          outcome: 'failed',
          after: { code: input.code, name: input.name },
          detail: problemCode(error),
        });
        throw error;
      }
    },

    /**
     * A chart of accounts from a CSV file (`chart-csv.ts`): all of it or, on any problem,
     * nothing. Each category added or renamed is audited as if made by hand.
     */
    async importCategories(who: Who, csv: string): Promise<ChartImportResult> {
      const chart = chartFromCsv(csv);
      refuseCardNumberNames(chart);
      const s = await store();
      let result: Awaited<ReturnType<NotesStore['importCategories']>>;
      try {
        result = await auditedChange(
          deps,
          (audited) => s.importCategories(chart, new Date(deps.clock.now()), audited),
          ({ changed }) =>
            changed.map(({ before, after }) => ({
              actor: who.actor.email,
              role: who.actor.role,
              action: before ? 'category.update' : 'category.create',
              target: after.id,
              requestId: who.requestId,
              outcome: 'success',
              ...(before ? { before: categorySnapshot(before) } : {}),
              after: categorySnapshot(after),
              detail: 'import',
            })),
        );
      } catch (caught) {
        rethrowUnrecorded(caught);
        // Refused as a whole (nothing of the file saved): recorded, as a refused add or change is.
        const error = storeProblem(caught);
        await deps.audit.append({
          actor: who.actor.email,
          role: who.actor.role,
          action: 'category.create',
          requestId: who.requestId,
          outcome: 'failed',
          detail: `import: ${problemCode(error)}`,
        });
        throw error;
      }
      const created = result.changed.filter((c) => !c.before).length;
      return {
        created,
        renamed: result.changed.length - created,
        unchanged: result.unchanged,
        items: await s.categories(),
      };
    },

    async updateCategory(
      who: Who,
      id: string,
      patch: AccountingCategoryPatch,
    ): Promise<AccountingCategory> {
      refuseCardNumberNames([patch]);
      const base = {
        actor: who.actor.email,
        role: who.actor.role,
        action: 'category.update',
        target: id,
        requestId: who.requestId,
      } as const;
      try {
        const s = await store();
        // A change that leaves every value as it is: the store writes nothing (under the row's
        // lock) and nothing is recorded; the answer is the category as it is.
        const { after } = await auditedChange(
          deps,
          (audited) => s.updateCategory(id, patch, new Date(deps.clock.now()), audited),
          ({ before, after }) =>
            changesNothing(before, after)
              ? []
              : [
                  {
                    ...base,
                    outcome: 'success',
                    before: categorySnapshot(before),
                    after: categorySnapshot(after),
                  },
                ],
        );
        return after;
      } catch (caught) {
        rethrowUnrecorded(caught);
        const error = storeProblem(caught);
        await deps.audit.append({ ...base, outcome: 'failed', detail: problemCode(error) });
        throw error;
      }
    },
  };
}
