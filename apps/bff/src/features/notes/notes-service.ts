import { createHash } from 'node:crypto';
import type { BulkNotesChange, BulkNotesResult, Notes } from '@card-console/shared/api/notes';
import {
  NOTES_MATCHING_MAX,
  type NotesMatchingResult,
} from '@card-console/shared/api/notes-matching';
import { AppError, problemCode } from '../../core/app-error';
import type { NewAuditRecord } from '../../platform/audit/audit-store';
import { auditedChange, rethrowUnrecorded } from '../../platform/audit/audited-change';
import { holdsCardNumber, withCardNumbersMasked } from '../../platform/security/card-number-ids';
import type { Who } from '../../platform/sessions/who';
import type { SqlQueryable } from '../../platform/sql/sql-engine';
import type { FeatureDeps } from '../feature-deps';
import type { IndexSearchInput, TransactionIndexStore } from '../transaction-index';
import {
  type ManyChange,
  type ManyChanged,
  type NotesChange,
  NotesConflictError,
  type NotesStore,
} from './notes-store';
import { type Categories, categoriesIn, categoryText, storeProblem } from './store-problems';

export interface NotesDeps extends Pick<FeatureDeps, 'upstream' | 'audit' | 'clock' | 'logger'> {
  /** The notes' store and the index's (to know which transactions exist). */
  stores: {
    notes(): Promise<NotesStore>;
    index(): Promise<TransactionIndexStore>;
  };
}

/** The rows a list's filter gives now, as the index's search reads them for a person. */
export type MatchingRows = (
  who: Who,
  filter: IndexSearchInput,
  max: number,
) => Promise<{
  count: number;
  rows?: { subAccountId: string; id: string }[];
  /** Which of `ids` the filter still gives, read in the change's transaction `q`. */
  stillMatching: (q: SqlQueryable, ids: readonly string[]) => Promise<ReadonlySet<string>>;
}>;

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
          // A change that changed nothing (the store wrote no new version) is not recorded.
          async ({ before, after }, tx: SqlQueryable) =>
            after.version === before.version
              ? []
              : [
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
      const { items, ...action } = input;
      const known = await (await deps.stores.index()).existing(items);
      const ids = [...new Set(items.map((i) => i.id))];
      const subOf = new Map(items.map((i) => [i.id, i.subAccountId]));
      const chosen = ids.filter((id) => known.has(id));
      const result = await applyMany(who, chosen, subOf, manyChangeOf(action), {
        name: 'selection',
        detail: `${chosen.length} chosen`,
      });
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

    /**
     * One change to every transaction the list's filter gives now (`matching`, however many
     * pages), or with `preview` what it would do. One audit record names the filter and the
     * counts, in the same transaction as each changed row's own record.
     */
    async changeMatching(
      who: Who,
      input: NotesMatchingInput,
      matching: MatchingRows,
    ): Promise<NotesMatchingResult> {
      const { filter, preview, matchingDigest: expected, ...action } = input;
      const found = await matching(who, filter, NOTES_MATCHING_MAX);
      if (!found.rows) {
        throw new AppError(
          400,
          'too_many_matching',
          `The filter gives ${found.count.toLocaleString('en-US')} transactions; one change reaches at most ${NOTES_MATCHING_MAX.toLocaleString('en-US')}. Narrow the filter (a month, a sub account) and change them in parts.`,
        );
      }
      const ids = found.rows.map((r) => r.id);
      const subOf = new Map(found.rows.map((r) => [r.id, r.subAccountId]));
      const change = manyChangeOf(action);
      const digest = digestOf(found.rows);
      if (!preview && expected !== undefined && expected !== digest) {
        const error = new AppError(
          409,
          'matching_changed',
          `The transactions this filter gives changed after they were counted: ${found.count.toLocaleString('en-US')} match now. Nothing was changed; check the new count and confirm again.`,
        );
        await deps.audit.append({
          actor: who.actor.email,
          role: who.actor.role,
          action: 'transaction.bulkNotes',
          target: 'matching',
          requestId: who.requestId,
          outcome: 'failed',
          after: await changeSnapshot(await store(), change),
          detail: `filter ${filterText(filter)}; ${found.count} matching; matching_changed`,
        });
        throw error;
      }
      const counted = (r: ManyChanged): NotesMatchingResult => {
        const skipped = new Map<string, number>();
        for (const { reason } of r.skipped) skipped.set(reason, (skipped.get(reason) ?? 0) + 1);
        return {
          preview: preview === true,
          matching: ids.length,
          matchingDigest: digest,
          changed: r.changed.length,
          skipped: [...skipped].map(([reason, count]) => ({
            reason: reason as ManyChanged['skipped'][number]['reason'],
            count,
          })),
        };
      };
      if (preview) {
        const s = await store();
        try {
          return counted(
            await s.changeMany(
              ids,
              change,
              who.actor.email,
              new Date(deps.clock.now()),
              undefined,
              {
                preview: true,
              },
            ),
          );
        } catch (caught) {
          // A preview refused as its change would be (no such category, an archived one).
          throw storeProblem(caught);
        }
      }
      const target = { name: 'matching' as const, detail: `filter ${filterText(filter)}` };
      const still = found.stillMatching;
      const result = await applyMany(who, ids, subOf, change, target, still, async (r, tx) => {
        const answer = counted(r);
        const skipped = answer.skipped.map((s) => `${s.count} ${s.reason}`).join(', ');
        return {
          actor: who.actor.email,
          role: who.actor.role,
          action: 'transaction.bulkNotes',
          target: 'matching',
          requestId: who.requestId,
          outcome: 'success',
          after: await changeSnapshot(categoriesIn(tx), change),
          detail: `filter ${filterText(filter)}; ${answer.matching} matching, ${answer.changed} changed${skipped ? `, skipped ${skipped}` : ''}`,
        };
      });
      return counted(result);
    },
  };

  /**
   * `change` made to `ids` in one transaction with one audit record per changed row (and,
   * given `summary`, one for the whole change first), all committed together or not at all.
   * A change refused (a row's notes changed meanwhile, an archived category) is audited as one
   * failed `transaction.bulkNotes` record naming `target` (the selection, or the filter) and why.
   */
  async function applyMany(
    who: Who,
    ids: readonly string[],
    subOf: ReadonlyMap<string, string>,
    change: ManyChange,
    target: { name: 'selection' | 'matching'; detail: string },
    stillMatching?: (q: SqlQueryable, ids: readonly string[]) => Promise<ReadonlySet<string>>,
    summary?: (result: ManyChanged, tx: SqlQueryable) => Promise<NewAuditRecord>,
  ): Promise<ManyChanged> {
    const s = await store();
    try {
      return await auditedChange(
        deps,
        (audited) =>
          s.changeMany(
            ids,
            change,
            who.actor.email,
            new Date(deps.clock.now()),
            audited,
            stillMatching ? { stillMatching } : {},
          ),
        async (result, tx: SqlQueryable) => {
          const records: NewAuditRecord[] = summary ? [await summary(result, tx)] : [];
          for (const { before, after } of result.changed) {
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
      rethrowUnrecorded(caught);
      const error = storeProblem(caught);
      await deps.audit.append({
        actor: who.actor.email,
        role: who.actor.role,
        action: 'transaction.bulkNotes',
        target: target.name,
        requestId: who.requestId,
        outcome: 'failed',
        after: await changeSnapshot(s, change),
        detail: `${target.detail}; ${ids.length} to change; ${problemCode(error)}`,
      });
      throw error;
    }
  }

  /** What a change of many writes, for its audit record: only the fields it sets. */
  async function changeSnapshot(s: Categories, change: ManyChange): Promise<Snapshot> {
    const category =
      change.categoryId === undefined ? undefined : await categoryText(s, change.categoryId);
    return {
      ...(change.memo ? { memo: `${change.memo.mode}: ${change.memo.text}` } : {}),
      ...(category === undefined ? {} : { category }),
      ...(change.addTags ? { tags: [...change.addTags] } : {}),
      ...(change.reviewed === undefined ? {} : { reviewed: change.reviewed }),
    };
  }
}

/** A change of many as the store takes it (the request's fields that are given). */
function manyChangeOf(action: Omit<BulkNotesChange, 'items'>): ManyChange {
  refuseCardNumbers({
    version: 0,
    ...(action.addTags ? { tags: action.addTags } : {}),
    ...(action.memo ? { memo: action.memo.text } : {}),
  });
  return {
    ...(action.categoryId === undefined ? {} : { categoryId: action.categoryId }),
    ...(action.addTags ? { addTags: action.addTags } : {}),
    ...(action.memo ? { memo: action.memo } : {}),
    ...(action.reviewed === undefined ? {} : { reviewed: action.reviewed }),
  };
}

/**
 * Which rows a filter gave, as a token: the same rows (in any order) give the same token, any
 * row more or less another. A preview answers it; its confirmation names it.
 */
function digestOf(rows: readonly { subAccountId: string; id: string }[]): string {
  const keys = rows.map((r) => `${r.subAccountId}\u0000${r.id}`).sort();
  return createHash('sha256').update(keys.join('\n')).digest('base64url').slice(0, 32);
}

/**
 * The filter as the list's address spells it, for the audit record, with any text that reads as a
 * card number masked (a search for a long reference is a fair search; the trail refuses the
 * number, which would refuse the change).
 */
function filterText(filter: IndexSearchInput): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(filter)) {
    for (const one of Array.isArray(value) ? value : [value]) {
      params.append(key, withCardNumbersMasked(String(one)));
    }
  }
  return withCardNumbersMasked(params.toString()) || '(none: every transaction)';
}

/** A change of every matching row, as the endpoint's body gives it. */
export type NotesMatchingInput = Omit<BulkNotesChange, 'items'> & {
  filter: IndexSearchInput;
  preview?: boolean | undefined;
  matchingDigest?: string | undefined;
};
