import type { AccountingCategory } from '@card-console/shared/api/accounting-categories';
import type { Notes } from '@card-console/shared/api/notes';
import { useId } from 'react';
import { Field } from '../../../components/field';
import { formatDateTime } from '../../../lib/format';
import { MAX_MEMO, valuesOf } from '../notes-form';
import { AccountingCategorySelect } from './accounting-category-select';
import { MerchantRuleAction } from './merchant-rule-action';
import { NotesConflict } from './notes-conflict';
import { NotesSummary } from './notes-summary';
import { TagsField } from './tags-field';
import { useNotesEditor } from './use-notes-editor';

interface Props {
  transactionId: string;
  saved: Notes;
  categories: AccountingCategory[];
  /** The transaction's merchant text, for an admin's merchant rule; none without a merchant. */
  merchant?: string | undefined;
  /** The category the merchant was last booked to, offered first. */
  suggested?: string | undefined;
  /** In a review queue: opens the next transaction (after Save and next). */
  onNext?: (() => void) | undefined;
}

/**
 * Memo, accounting category and tags, saved against the version the person saw; Mark reviewed
 * locks them, Reopen unlocks. When someone else saved first (409), what the person typed stays in
 * the form, the notes as they are now are shown beside it, and their change can be applied to those.
 */
export function NotesEditor({
  transactionId,
  saved,
  categories,
  merchant,
  suggested,
  onNext,
}: Props) {
  const notes = useNotesEditor(transactionId, saved);
  const { base, draft, errors, conflict, saving, refs, edit } = notes;
  const reviewed = base.review.state === 'reviewed' ? base.review : undefined;
  // In a queue the form's own submit (Enter, Ctrl+Enter in the memo) is Save and next.
  const saveAndNext = onNext ? () => notes.submit(true, onNext) : undefined;
  const nextHintId = useId();
  return (
    <section className="panel notes" aria-labelledby="notes-title">
      <div className="notes-header">
        <h2 id="notes-title" ref={refs.heading} tabIndex={-1}>
          Notes
        </h2>
        {reviewed ? (
          <>
            <p className="notes-review" ref={refs.review} tabIndex={-1}>
              <span className="badge badge-reviewed">Reviewed</span> by {reviewed.by} on{' '}
              {formatDateTime(reviewed.at)}
            </p>
            <button type="button" disabled={saving} onClick={() => notes.submit(false)}>
              {saving ? 'Reopening…' : 'Reopen'}
            </button>
            {onNext ? (
              <button type="button" className="primary" onClick={onNext}>
                Next
              </button>
            ) : null}
          </>
        ) : (
          <p className="notes-review muted">Not reviewed</p>
        )}
      </div>
      {reviewed ? (
        <>
          <NotesSummary values={valuesOf(base)} categories={categories} />
          <p className="muted notes-locked">Reviewed notes are locked. Reopen to change them.</p>
        </>
      ) : (
        <form
          className="notes-form"
          onSubmit={(event) => {
            event.preventDefault();
            if (saveAndNext) saveAndNext();
            else notes.submit(undefined);
          }}
          noValidate
        >
          <div className="notes-fields">
            <Field
              label="Memo"
              className="notes-memo"
              hint={`Up to ${MAX_MEMO.toLocaleString('en-US')} characters.`}
              error={errors.memo}
            >
              {(control) => (
                <textarea
                  {...control}
                  ref={refs.memo}
                  rows={5}
                  // What is typed while a save is on its way would be replaced by its answer.
                  readOnly={saving}
                  value={draft.memo}
                  onChange={(e) => edit.memo(e.target.value)}
                  onKeyDown={(e) => {
                    // Ctrl+Enter (⌘+Enter): save, as the form's button does; Enter is a new line.
                    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
                      e.preventDefault();
                      e.currentTarget.form?.requestSubmit();
                    }
                  }}
                />
              )}
            </Field>
            <div className="notes-side">
              <AccountingCategorySelect
                value={draft.categoryId}
                kept={base.categoryId}
                categories={categories}
                suggested={suggested}
                error={errors.category}
                onChange={(id) => (saving ? undefined : edit.category(id))}
              />
              <TagsField
                tags={draft.tags}
                text={notes.tagText}
                error={errors.tags}
                inputRef={refs.tags}
                busy={saving}
                onChange={({ tags, text, error }) => edit.tags(tags, text, error)}
              />
            </div>
          </div>
          {errors.form ? (
            <p className="form-error" role="alert">
              Your notes were not saved: {errors.form}
            </p>
          ) : null}
          {conflict ? (
            <NotesConflict
              seen={valuesOf(base)}
              current={conflict.current}
              mine={draft}
              review={conflict.review}
              categories={categories}
              saving={saving}
              onApply={notes.apply}
              onDiscard={notes.discard}
            />
          ) : (
            <div className="actions">
              {notes.dirty ? (
                <button type="button" onClick={notes.discard}>
                  Discard changes
                </button>
              ) : null}
              {saveAndNext ? (
                <>
                  <button type="button" disabled={saving} onClick={() => notes.submit(true)}>
                    {notes.dirty ? 'Save and mark reviewed' : 'Mark reviewed'}
                  </button>
                  <button type="button" disabled={saving} onClick={() => notes.submit(undefined)}>
                    Save
                  </button>
                  <button
                    type="submit"
                    className="primary"
                    disabled={saving}
                    aria-describedby={nextHintId}
                  >
                    {saving ? 'Saving…' : 'Save and next'}
                  </button>
                  <small id={nextHintId} className="muted next-hint">
                    Marks it reviewed and opens the next (Ctrl+Enter).
                  </small>
                </>
              ) : (
                <>
                  <button type="button" disabled={saving} onClick={() => notes.submit(true)}>
                    {notes.dirty ? 'Save and mark reviewed' : 'Mark reviewed'}
                  </button>
                  <button type="submit" className="primary" disabled={saving}>
                    {saving ? 'Saving…' : 'Save'}
                  </button>
                </>
              )}
            </div>
          )}
        </form>
      )}
      <div role="status" aria-live="polite">
        {notes.message ? <p className="notice notes-message">{notes.message}</p> : null}
      </div>
      <LastChange notes={conflict?.current ?? base} />
      {merchant && base.categoryId && !conflict ? (
        <MerchantRuleAction
          merchant={merchant}
          categoryId={base.categoryId}
          categories={categories}
        />
      ) : null}
    </section>
  );
}

function LastChange({ notes }: { notes: Notes }) {
  if (!notes.updatedBy || !notes.updatedAt) return null;
  return (
    <p className="muted notes-updated">
      Last changed by {notes.updatedBy} on {formatDateTime(notes.updatedAt)}
    </p>
  );
}
