import type { BulkNotesChange, BulkNotesResult, Notes } from '@card-console/shared/api/notes';
import { AppError, problemCode } from '../../core/app-error';
import type { NewAuditRecord } from '../../platform/audit/audit-store';
import { auditedChange, rethrowUnrecorded } from '../../platform/audit/audited-change';
import { holdsCardNumber } from '../../platform/security/card-number-ids';
import type { Who } from '../../platform/sessions/who';
import type { SqlQueryable } from '../../platform/sql/sql-engine';
import type { FeatureDeps } from '../feature-deps';
import type { TransactionIndexStore } from '../transaction-index';
import { type NotesChange, NotesConflictError, type NotesStore } from './notes-store';
import { type Categories, categoriesIn, categoryText, storeProblem } from './store-problems';

export interface NotesDeps extends Pick<FeatureDeps, 'upstream' | 'audit' | 'clock' | 'logger'> {
  /** The notes' store and the index's (to know which transactions exist). */
  stores: {
    notes(): Promise<NotesStore>;
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

/**
 * Transaction notes (memo, accounting category, tags, review). Every
 * change and every refused one is audited with before → after, a change's record in the
 * change's own transaction (a change the trail cannot record is not made: 503
 * `audit_unavailable`, platform/audit/audited-change.ts); a change names the notes'
 * version it was made on, and a stale or reviewed one is a 409 with the notes as they are
 * (the person's text stays in their form, with the current values beside it).
 */
export function createNotesService(deps: NotesDeps) {
  const store = () => deps.stores.notes();

  const snapshot = async (s: Categories, a: Notes): Promise<Snapshot> => {
    const category = await categoryText(s, a.categoryId);
    return {
      memo: a.memo,
      ...(category === undefined ? {} : { category }),
      tags: a.tags,
      reviewed: a.review.state === 'reviewed',
    };
  };
  /** What a refused change would have made of the notes, for its audit record. */
  const attempted = async (s: Categories, a: Notes, change: NotesChange) =>
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

  return {
    async get(_who: Who, transactionId: string): Promise<Notes> {
      return (await store()).get(transactionId);
    },

    async change(who: Who, transactionId: string, change: NotesChange): Promise<Notes> {
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
              before: await snapshot(categoriesIn(tx), before),
              after: await snapshot(categoriesIn(tx), after),
            },
          ],
        );
        return after;
      } catch (caught) {
        rethrowUnrecorded(caught);
        const error = storeProblem(caught);
        const current = caught instanceof NotesConflictError ? caught.current : undefined;
        await deps.audit.append({
          ...base,
          ...subAccount,
          outcome: 'failed',
          ...(current
            ? { before: await snapshot(s, current), after: await attempted(s, current, change) }
            : {}),
          detail: problemCode(error),
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
      let result: Awaited<ReturnType<NotesStore['changeMany']>>;
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
                before: await snapshot(categoriesIn(tx), before),
                after: await snapshot(categoriesIn(tx), after),
                detail: 'bulk',
              });
            }
            return records;
          },
        );
      } catch (caught) {
        throw storeProblem(caught);
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
  };
}
