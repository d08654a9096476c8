import type {
  AccountingCategory,
  AccountingCategoryCreate,
  AccountingCategoryPatch,
  Annotation,
  BulkNotesChange,
  BulkNotesResult,
  ChartImportResult,
  MerchantRule,
  MerchantRuleCreate,
} from '@card-console/shared/api/annotations';
import { AppError } from '../../core/app-error';
import type { NewAuditRecord } from '../../platform/audit/audit-store';
import { AuditUnavailableError, auditedChange } from '../../platform/audit/audited-change';
import { holdsCardNumber } from '../../platform/security/card-number-ids';
import type { Who } from '../../platform/sessions/who';
import type { SqlQueryable } from '../../platform/sql/sql-engine';
import type { FeatureDeps } from '../feature-deps';
import type { TransactionIndexStore } from '../transaction-index';
import {
  AnnotationConflictError,
  type AnnotationStore,
  CategoryCodeTakenError,
  CategoryNotFoundError,
  CategoryUnusableError,
  categoryIn,
  MerchantRuleExistsError,
  type NotesChange,
} from './annotation-store';
import { chartFromCsv } from './chart-csv';

export interface AnnotationsDeps
  extends Pick<FeatureDeps, 'upstream' | 'audit' | 'clock' | 'logger'> {
  /** The notes' store and the index's (to know which transactions exist). */
  stores: {
    annotations(): Promise<AnnotationStore>;
    index(): Promise<TransactionIndexStore>;
  };
}

type Snapshot = NonNullable<NewAuditRecord['before']>;

/** A memo or a tag may not carry a card number: refused before anything is saved or audited. */
function refuseCardNumbers(change: NotesChange): void {
  const texts = [change.memo ?? '', ...(change.tags ?? [])];
  if (texts.some((text) => holdsCardNumber(text))) {
    throw new AppError(
      400,
      'invalid_body',
      'A memo or tag must not hold a card number. Remove it and save again.',
    );
  }
}

/** A category's code or name may not carry a card number either. */
function refuseCardNumberNames(categories: readonly { code?: string; name?: string }[]): void {
  if (categories.some((c) => holdsCardNumber(`${c.code ?? ''} ${c.name ?? ''}`))) {
    throw new AppError(
      400,
      'invalid_body',
      'An account code or name must not hold a card number. Remove it and try again.',
    );
  }
}

const errorCode = (error: unknown) => (error instanceof AppError ? error.code : 'internal_error');

/**
 * A change the trail could not record was rolled back: there is no refusal to record, and a
 * record of it would be refused the same way.
 */
export function rethrowUnrecorded(error: unknown): void {
  if (error instanceof AuditUnavailableError) throw error;
}

/** Where a change's audit record reads categories: the change's own transaction, or the store. */
type Categories = Pick<AnnotationStore, 'category'>;
const inTx = (tx: SqlQueryable): Categories => ({ category: (id) => categoryIn(tx, id) });

/**
 * Transaction notes (memo, accounting category, tags, review) and the chart of accounts. Every
 * change and every refused one is audited with before → after, a change's record in the
 * change's own transaction (a change the trail cannot record is not made: 503
 * `audit_unavailable`, platform/audit/audited-change.ts); a change names the notes'
 * version it was made on, and a stale or reviewed one is a 409 with the notes as they are
 * (the person's text stays in their form, with the current values beside it).
 */
export function createAnnotationsService(deps: AnnotationsDeps) {
  const store = () => deps.stores.annotations();

  /** How an audit record shows a category: `6100 Software`, or its id if it is gone. */
  const categoryText = async (s: Categories, id: string | null) => {
    if (id === null) return undefined;
    const category = await s.category(id);
    return category ? `${category.code} ${category.name}` : id;
  };
  const snapshot = async (s: Categories, a: Annotation): Promise<Snapshot> => {
    const category = await categoryText(s, a.categoryId);
    return {
      memo: a.memo,
      ...(category === undefined ? {} : { category }),
      tags: a.tags,
      reviewed: a.review.state === 'reviewed',
    };
  };
  /** What a refused change would have made of the notes, for its audit record. */
  const attempted = async (s: Categories, a: Annotation, change: NotesChange) =>
    snapshot(s, {
      ...a,
      memo: change.memo ?? a.memo,
      categoryId: change.categoryId === undefined ? a.categoryId : change.categoryId,
      tags: change.tags ?? a.tags,
      review:
        change.reviewed === undefined
          ? a.review
          : change.reviewed
            ? { state: 'reviewed', by: '', at: '' }
            : { state: 'unreviewed' },
    });

  const categorySnapshot = (c: AccountingCategory): Snapshot => ({
    code: c.code,
    name: c.name,
    archived: c.archived,
  });

  return {
    async get(_who: Who, transactionId: string): Promise<Annotation> {
      return (await store()).get(transactionId);
    },

    async change(who: Who, transactionId: string, change: NotesChange): Promise<Annotation> {
      refuseCardNumbers(change);
      const ctx = { requestId: who.requestId, trace: who.trace, role: who.actor.role };
      const base = {
        actor: who.actor.email,
        role: who.actor.role,
        action: 'transaction.annotate',
        target: transactionId,
        requestId: who.requestId,
      } as const;
      // Only a transaction the card service has (a 404 otherwise): notes never name nothing.
      const transaction = await deps.upstream.getTransaction(ctx, transactionId);
      const s = await store();
      const subAccount = transaction.subAccountId ? { subAccountId: transaction.subAccountId } : {};
      try {
        const { after } = await auditedChange(
          deps,
          (audited) =>
            s.change(transactionId, change, who.actor.email, new Date(deps.clock.now()), audited),
          async ({ before, after }, tx: SqlQueryable) => [
            {
              ...base,
              ...subAccount,
              outcome: 'success',
              before: await snapshot(inTx(tx), before),
              after: await snapshot(inTx(tx), after),
            },
          ],
        );
        return after;
      } catch (caught) {
        rethrowUnrecorded(caught);
        const error = translate(caught);
        const current = caught instanceof AnnotationConflictError ? caught.current : undefined;
        await deps.audit.append({
          ...base,
          ...subAccount,
          outcome: 'failed',
          ...(current
            ? { before: await snapshot(s, current), after: await attempted(s, current, change) }
            : {}),
          detail: errorCode(error),
        });
        throw error;
      }
    },

    /**
     * One change to a selection of the list: each transaction the index holds is changed as it
     * is now (no version: the person chose rows, not values), each change audited; reviewed
     * ones (unless reopened), ones that would hold too many tags and ones not in the index are
     * skipped and named.
     */
    async changeMany(who: Who, input: BulkNotesChange): Promise<BulkNotesResult> {
      refuseCardNumbers({ version: 0, ...(input.addTags ? { tags: input.addTags } : {}) });
      const known = await (await deps.stores.index()).existing(input.items);
      const ids = [...new Set(input.items.map((i) => i.id))];
      const s = await store();
      const subOf = new Map(input.items.map((i) => [i.id, i.subAccountId]));
      let result: Awaited<ReturnType<AnnotationStore['changeMany']>>;
      try {
        result = await auditedChange(
          deps,
          (audited) =>
            s.changeMany(
              ids.filter((id) => known.has(id)),
              {
                ...(input.categoryId === undefined ? {} : { categoryId: input.categoryId }),
                ...(input.addTags ? { addTags: input.addTags } : {}),
                ...(input.reviewed === undefined ? {} : { reviewed: input.reviewed }),
              },
              who.actor.email,
              new Date(deps.clock.now()),
              audited,
            ),
          async ({ changed }, tx: SqlQueryable) => {
            const records: NewAuditRecord[] = [];
            for (const { before, after } of changed) {
              records.push({
                actor: who.actor.email,
                role: who.actor.role,
                action: 'transaction.annotate',
                target: after.transactionId,
                subAccountId: subOf.get(after.transactionId) as string,
                requestId: who.requestId,
                outcome: 'success',
                before: await snapshot(inTx(tx), before),
                after: await snapshot(inTx(tx), after),
                detail: 'bulk',
              });
            }
            return records;
          },
        );
      } catch (caught) {
        throw translate(caught);
      }
      return {
        changed: result.changed.map((c) => c.after),
        skipped: [
          ...result.skipped,
          ...ids
            .filter((id) => !known.has(id))
            .map((transactionId) => ({ transactionId, reason: 'not_found' as const })),
        ],
      };
    },

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
        const error = translate(caught);
        await deps.audit.append({
          ...base,
          outcome: 'failed',
          after: { merchant: input.merchant, ...(category ? { category } : {}) },
          detail: errorCode(error),
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
          const category = await categoryText(inTx(tx), rule.categoryId);
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
        const error = translate(caught);
        await deps.audit.append({
          ...base,
          outcome: 'failed',
          after: { code: input.code, name: input.name },
          detail: errorCode(error),
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
      let result: Awaited<ReturnType<AnnotationStore['importCategories']>>;
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
        throw translate(caught);
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
        const { after } = await auditedChange(
          deps,
          (audited) => s.updateCategory(id, patch, new Date(deps.clock.now()), audited),
          ({ before, after }) => [
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
        const error = translate(caught);
        await deps.audit.append({ ...base, outcome: 'failed', detail: errorCode(error) });
        throw error;
      }
    },
  };
}

/** The store's refusals as the API's problems; anything else as it is. */
function translate(error: unknown): unknown {
  if (error instanceof AnnotationConflictError) {
    return error.reason === 'changed'
      ? new AppError(
          409,
          'annotation_changed',
          "Someone else changed this transaction's notes after you loaded them, so nothing was saved. Check their current values and apply your change again.",
          { extensions: { current: error.current } },
        )
      : new AppError(
          409,
          'transaction_reviewed',
          'This transaction has been reviewed, so its notes are locked. Reopen it to change them.',
          { extensions: { current: error.current } },
        );
  }
  if (error instanceof CategoryUnusableError) {
    return error.reason === 'archived'
      ? new AppError(
          409,
          'category_archived',
          'That accounting category has been archived. Choose another one.',
        )
      : new AppError(400, 'invalid_body', 'There is no such accounting category.');
  }
  if (error instanceof CategoryCodeTakenError) {
    return new AppError(
      409,
      'category_code_taken',
      'Another accounting category already has this code. Use a different code.',
    );
  }
  if (error instanceof MerchantRuleExistsError) {
    return new AppError(
      409,
      'merchant_rule_exists',
      'This merchant already has a rule. Remove it first to book the merchant elsewhere.',
    );
  }
  if (error instanceof CategoryNotFoundError) {
    return new AppError(404, 'not_found', 'There is no such accounting category.');
  }
  return error;
}
