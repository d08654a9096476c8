import type { Notes } from '@card-console/shared/api/notes';
import { type QueryClient, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { isApiError } from '../../../lib/api-error';
import { accountingCategoriesQueryOptions } from '../../accounting-categories/api/get-accounting-categories';
import { notesNow, useUpdateNotes } from '../api/update-notes';
import {
  addTags,
  fieldsChanged,
  isEmpty,
  layOver,
  memoProblem,
  type NotesFields,
  type NotesValues,
  reviewOnApply,
  splitTags,
  valuesOf,
} from '../notes-form';

/** What a save does to the review: mark it (true), reopen it (false), or leave it. */
export type Review = boolean | undefined;
type Errors = Partial<Record<'memo' | 'tags' | 'category' | 'form', string>>;
type FocusTarget = 'memo' | 'tags' | 'review' | 'heading';

/**
 * What was typed in a transaction's notes and not saved, over the version it was typed on, kept
 * in the query cache: a form mounted again (its screen suspended and shown again, the phone
 * layout turned) finds it rather than the notes as saved. A save or a Discard forgets it, and
 * so does signing out (the cache is emptied); unread for a few minutes, the cache drops it.
 */
interface Unsaved {
  version: number;
  draft: NotesValues;
  tagText: string;
}
const UNSAVED = ['transactions', 'notes-unsaved'] as const;
const unsavedKey = (transactionId: string) => [...UNSAVED, transactionId];

const guarded = new WeakSet<QueryClient>();
const askBeforeLeaving = (event: BeforeUnloadEvent) => event.preventDefault();

/**
 * Notes typed and not saved outlive their form within the app (the query cache keeps them), not
 * the page: closing or reloading the tab (or a Back that leaves the app) while any are kept asks
 * first, as the browser asks. One guard per query cache, for as long as the cache lives.
 */
function guardUnsavedNotes(queryClient: QueryClient): void {
  if (guarded.has(queryClient)) return;
  guarded.add(queryClient);
  const cache = queryClient.getQueryCache();
  let asking = false;
  const check = () => {
    const unsaved = cache.findAll({ queryKey: UNSAVED }).some((q) => q.state.data !== undefined);
    if (unsaved === asking) return;
    asking = unsaved;
    if (unsaved) window.addEventListener('beforeunload', askBeforeLeaving);
    else window.removeEventListener('beforeunload', askBeforeLeaving);
  };
  cache.subscribe(check);
  check();
}

/**
 * The notes form's state: the notes as the person saw them (`base`, which a refresh does not
 * move under an edit), what they typed (`draft`, `tagText`), and a conflict when someone else
 * saved first. Every save names the version it was made on; nothing typed is dropped except by
 * the person's own Discard.
 */
export function useNotesEditor(transactionId: string, saved: Notes) {
  const [base, setBase] = useState(saved);
  const queryClient = useQueryClient();
  const [kept] = useState(() => {
    const typed = queryClient.getQueryData<Unsaved>(unsavedKey(transactionId));
    return typed?.version === saved.version ? typed : undefined;
  });
  const [draft, setDraft] = useState(() => kept?.draft ?? valuesOf(saved));
  const [tagText, setTagText] = useState(kept?.tagText ?? '');
  const [errors, setErrors] = useState<Errors>({});
  const [conflict, setConflict] = useState<{ current: Notes; review: Review }>();
  const [message, setMessage] = useState('');
  const update = useUpdateNotes(transactionId);
  const refs = {
    memo: useRef<HTMLTextAreaElement>(null),
    tags: useRef<HTMLInputElement>(null),
    review: useRef<HTMLParagraphElement>(null),
    heading: useRef<HTMLHeadingElement>(null),
  };
  // Focus follows what happened: the field to fix, the review line, the memo once reopened.
  const [focus, setFocus] = useState<{ target: FocusTarget }>();
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs when a focus is asked for
  useEffect(() => {
    if (focus) refs[focus.target].current?.focus();
  }, [focus]);

  const dirty = !isEmpty(fieldsChanged(valuesOf(base), draft)) || tagText.trim() !== '';
  useEffect(() => guardUnsavedNotes(queryClient), [queryClient]);
  useEffect(() => {
    const key = unsavedKey(transactionId);
    if (dirty) queryClient.setQueryData<Unsaved>(key, { version: base.version, draft, tagText });
    else queryClient.removeQueries({ queryKey: key, exact: true });
  }, [dirty, transactionId, base.version, draft, tagText, queryClient]);
  const start = (from: Notes) => {
    setBase(from);
    setDraft(valuesOf(from));
    setTagText('');
    setErrors({});
    setConflict(undefined);
  };
  const say = (text: string, target: FocusTarget) => {
    setMessage(text);
    setFocus({ target });
  };
  // Newer notes from elsewhere replace the form only while nothing is typed in it.
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs when the notes change
  useEffect(() => {
    if (saved.version !== base.version && !dirty && !conflict) start(saved);
  }, [saved]);

  /** The form's values with a tag still being typed added; undefined if something is wrong. */
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

  const save = (on: Notes, fields: NotesFields, review: Review, then?: (saved: Notes) => void) => {
    setMessage('');
    update.mutate(
      { version: on.version, ...fields, ...(review === undefined ? {} : { reviewed: review }) },
      {
        onSuccess: (saved) => {
          start(saved);
          // Saved, and the person goes on (to the next in the queue): no message to read here.
          if (then) return then(saved);
          say(
            doneMessage(fields, review),
            review ? 'review' : review === false ? 'memo' : 'heading',
          );
        },
        onError: (error) => {
          const current = notesNow(error);
          if (current && isEmpty(fields)) {
            // Only the review was asked for: nothing typed to keep; the notes as they are now.
            start(current);
            say(
              'Someone else changed these notes meanwhile, so nothing was saved. Here they are as they are now.',
              'heading',
            );
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

  /**
   * Saves what changed since the notes were shown, and marks or reopens the review; then, when
   * given, `then` (Save and next).
   */
  const submit = (review: Review, then?: (saved: Notes) => void) => {
    if (update.isPending) return;
    const values = checked();
    if (!values) return;
    const fields = fieldsChanged(valuesOf(base), values);
    if (isEmpty(fields) && review === undefined) {
      setMessage('Nothing to save: the notes are as shown.');
      return;
    }
    save(base, fields, review, then);
  };

  /** The person's change laid over the notes as they are now, saved on that version. */
  const apply = () => {
    if (!conflict || update.isPending) return;
    const values = checked();
    if (!values) return;
    const { current, review } = conflict;
    const now = valuesOf(current);
    const fields = fieldsChanged(now, layOver(valuesOf(base), now, values));
    const next = reviewOnApply(current.review.state === 'reviewed', !isEmpty(fields), review);
    if (isEmpty(fields) && next === undefined) {
      start(current);
      say('Nothing to save: the notes already hold your change.', 'heading');
      return;
    }
    save(current, fields, next);
  };

  const discard = () => {
    if (conflict) {
      start(conflict.current);
      say('Your change was discarded; the notes are as they are now.', 'heading');
    } else {
      start(base);
      say('Your changes were discarded.', 'memo');
    }
  };

  const edit = {
    memo: (memo: string) => setDraft({ ...draft, memo }),
    category: (categoryId: string | null) => {
      setDraft({ ...draft, categoryId });
      setErrors({ ...errors, category: undefined });
    },
    tags: (tags: string[], text: string, error: string | undefined) => {
      setDraft({ ...draft, tags });
      setTagText(text);
      setErrors({ ...errors, tags: error });
    },
  };

  return {
    base,
    draft,
    tagText,
    errors,
    conflict,
    message,
    dirty,
    saving: update.isPending,
    refs,
    edit,
    submit,
    apply,
    discard,
  };
}

function doneMessage(fields: NotesFields, review: Review): string {
  const changed = !isEmpty(fields);
  if (review === true) return changed ? 'Notes saved and marked reviewed.' : 'Marked reviewed.';
  if (review === false) {
    return changed ? 'Reopened, and your change saved.' : 'Reopened: the notes can be changed.';
  }
  return 'Notes saved.';
}
