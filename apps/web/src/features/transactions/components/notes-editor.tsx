import type { AccountingCategory, Annotation } from '@card-console/shared/api/annotations';
import { useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { Field } from '../../../components/field';
import { isApiError } from '../../../lib/api-error';
import { formatDateTime } from '../../../lib/format';
import { accountingCategoriesQueryOptions } from '../../accounting-categories/api/get-accounting-categories';
import { annotationNow, useUpdateAnnotation } from '../api/update-annotation';
import {
  addTags,
  fieldsChanged,
  isEmpty,
  layOver,
  MAX_MEMO,
  memoProblem,
  type NotesFields,
  type NotesValues,
  splitTags,
  valuesOf,
} from '../notes-form';
import { AccountingCategorySelect } from './accounting-category-select';
import { NotesConflict } from './notes-conflict';
import { NotesSummary } from './notes-summary';
import { TagsField } from './tags-field';

/** What a save does to the review: mark it (true), reopen it (false), or leave it. */
type Review = boolean | undefined;
type Errors = Partial<Record<'memo' | 'tags' | 'category' | 'form', string>>;
type FocusTarget = 'memo' | 'tags' | 'review' | 'heading';

interface Props {
  transactionId: string;
  annotation: Annotation;
  categories: AccountingCategory[];
}

/**
 * Memo, accounting category and tags, saved against the version the person saw; Review locks
 * them, Reopen unlocks. When someone else saved first (409), what the person typed stays in the
 * form, the notes as they are now are shown beside it, and their change can be applied to those.
 */
export function NotesEditor({ transactionId, annotation, categories }: Props) {
  // What the person saw: a refresh must not move it under their edit.
  const [base, setBase] = useState(annotation);
  const [draft, setDraft] = useState(() => valuesOf(annotation));
  const [tagText, setTagText] = useState('');
  const [errors, setErrors] = useState<Errors>({});
  const [conflict, setConflict] = useState<{ current: Annotation; review: Review }>();
  const [message, setMessage] = useState('');
  const update = useUpdateAnnotation(transactionId);
  const queryClient = useQueryClient();
  const refs = {
    memo: useRef<HTMLTextAreaElement>(null),
    tags: useRef<HTMLInputElement>(null),
    review: useRef<HTMLParagraphElement>(null),
    heading: useRef<HTMLHeadingElement>(null),
  };
  const [focus, setFocus] = useState<{ target: FocusTarget }>();
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs when a focus is asked for
  useEffect(() => {
    if (focus) refs[focus.target].current?.focus();
  }, [focus]);

  const dirty = !isEmpty(fieldsChanged(valuesOf(base), draft)) || tagText.trim() !== '';
  const start = (from: Annotation) => {
    setBase(from);
    setDraft(valuesOf(from));
    setTagText('');
    setErrors({});
    setConflict(undefined);
  };
  // Newer notes from elsewhere replace the form only while nothing is typed in it.
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs when the notes change
  useEffect(() => {
    if (annotation.version !== base.version && !dirty && !conflict) start(annotation);
  }, [annotation]);

  /** The form's values with a tag still being typed added; undefined if one is wrong. */
  const checked = (): NotesValues | undefined => {
    let values = draft;
    const pending = splitTags(tagText);
    if (pending.length) {
      const result = addTags(values.tags, pending);
      values = { ...values, tags: result.tags };
      setDraft(values);
      setTagText(result.rest.join(', '));
      if (result.error) {
        setErrors({ tags: result.error });
        setFocus({ target: 'tags' });
        return undefined;
      }
    }
    const memo = memoProblem(values.memo);
    if (memo) {
      setErrors({ memo });
      setFocus({ target: 'memo' });
      return undefined;
    }
    setErrors({});
    return values;
  };

  const save = (on: Annotation, fields: NotesFields, review: Review) => {
    setMessage('');
    update.mutate(
      { version: on.version, ...fields, ...(review === undefined ? {} : { reviewed: review }) },
      {
        onSuccess: (saved) => {
          start(saved);
          setMessage(doneMessage(fields, review));
          setFocus({ target: review === true ? 'review' : review === false ? 'memo' : 'heading' });
        },
        onError: (error) => {
          const current = annotationNow(error);
          if (current && isEmpty(fields)) {
            // Only the review was asked for: nothing typed to keep, the notes as they are now.
            start(current);
            setMessage(
              'Someone else changed these notes meanwhile, so nothing was saved. Here they are as they are now.',
            );
            setFocus({ target: 'heading' });
          } else if (current) {
            setConflict({ current, review });
          } else if (isApiError(error) && error.code === 'category_archived') {
            setErrors({ category: error.message });
            void queryClient.invalidateQueries({
              queryKey: accountingCategoriesQueryOptions().queryKey,
            });
          } else {
            setErrors({ form: error.message });
          }
        },
      },
    );
  };

  const submit = (review: Review) => {
    if (update.isPending) return;
    const values = checked();
    if (!values) return;
    const fields = fieldsChanged(valuesOf(base), values);
    if (isEmpty(fields) && review === undefined) {
      setMessage('Nothing to save: the notes are as shown.');
      return;
    }
    save(base, fields, review);
  };

  /** The person's change laid over the notes as they are now, saved on their version. */
  const apply = () => {
    if (!conflict || update.isPending) return;
    const values = checked();
    if (!values) return;
    const { current, review } = conflict;
    const fields = fieldsChanged(
      valuesOf(current),
      layOver(valuesOf(base), valuesOf(current), values),
    );
    const reviewed = current.review.state === 'reviewed';
    // A reviewed transaction takes a change only with its reopening.
    const next = reviewed
      ? isEmpty(fields)
        ? review === false
          ? false
          : undefined
        : false
      : review === true
        ? true
        : undefined;
    if (isEmpty(fields) && next === undefined) {
      start(current);
      setMessage('Nothing to save: the notes already hold your change.');
      setFocus({ target: 'heading' });
      return;
    }
    save(current, fields, next);
  };

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    submit(undefined);
  };

  const reviewed = base.review.state === 'reviewed' ? base.review : undefined;
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
            <button type="button" disabled={update.isPending} onClick={() => submit(false)}>
              {update.isPending ? 'Reopening…' : 'Reopen'}
            </button>
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
        <form className="notes-form" onSubmit={onSubmit} noValidate>
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
                  readOnly={update.isPending}
                  value={draft.memo}
                  onChange={(e) => setDraft({ ...draft, memo: e.target.value })}
                />
              )}
            </Field>
            <div className="notes-side">
              <AccountingCategorySelect
                value={draft.categoryId}
                kept={base.categoryId}
                categories={categories}
                error={errors.category}
                onChange={(categoryId) => {
                  if (update.isPending) return;
                  setDraft({ ...draft, categoryId });
                  setErrors({ ...errors, category: undefined });
                }}
              />
              <TagsField
                tags={draft.tags}
                text={tagText}
                error={errors.tags}
                inputRef={refs.tags}
                busy={update.isPending}
                onChange={({ tags, text, error }) => {
                  setDraft({ ...draft, tags });
                  setTagText(text);
                  setErrors({ ...errors, tags: error });
                }}
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
              saving={update.isPending}
              onApply={apply}
              onDiscard={() => {
                start(conflict.current);
                setMessage('Your change was discarded; the notes are as they are now.');
                setFocus({ target: 'heading' });
              }}
            />
          ) : (
            <div className="actions">
              {dirty ? (
                <button
                  type="button"
                  onClick={() => {
                    start(base);
                    setMessage('Your changes were discarded.');
                    setFocus({ target: 'memo' });
                  }}
                >
                  Discard changes
                </button>
              ) : null}
              <button type="button" disabled={update.isPending} onClick={() => submit(true)}>
                {dirty ? 'Save and mark reviewed' : 'Mark reviewed'}
              </button>
              <button type="submit" className="primary" disabled={update.isPending}>
                {update.isPending ? 'Saving…' : 'Save'}
              </button>
            </div>
          )}
        </form>
      )}
      <div role="status" aria-live="polite">
        {message ? <p className="notice notes-message">{message}</p> : null}
      </div>
      {base.updatedBy && base.updatedAt ? (
        <p className="muted notes-updated">
          Last changed by {base.updatedBy} on {formatDateTime(base.updatedAt)}
        </p>
      ) : null}
    </section>
  );
}

function doneMessage(fields: NotesFields, review: Review): string {
  if (review === true)
    return isEmpty(fields) ? 'Marked reviewed.' : 'Notes saved and marked reviewed.';
  if (review === false)
    return isEmpty(fields)
      ? 'Reopened: the notes can be changed.'
      : 'Reopened, and your change saved.';
  return 'Notes saved.';
}
