import { useQuery } from '@tanstack/react-query';
import { ErrorState } from '../../../components/error-state';
import { Loading } from '../../../components/loading';
import { accountingCategoriesQueryOptions } from '../../accounting-categories/api/get-accounting-categories';
import { notesQueryOptions } from '../api/get-notes';
import { NotesEditor } from './notes-editor';

/**
 * The transaction's notes, beside its details. Loaded on their own: when the notes cannot be
 * read, the transaction still shows, and this panel says why with a Retry.
 */
export function NotesPanel({
  transactionId,
  merchant,
  suggested,
  onNext,
}: {
  transactionId: string;
  /** The merchant's text, for an admin's "Always book … to …". */
  merchant?: string | undefined;
  /** The category the merchant was last booked to (the queue says), offered first. */
  suggested?: string | undefined;
  /** In a review queue: opens the next transaction (Save and next). */
  onNext?: (() => void) | undefined;
}) {
  const notes = useQuery(notesQueryOptions(transactionId));
  const categories = useQuery(accountingCategoriesQueryOptions());
  // A failed refresh keeps the notes shown (and anything typed in them); only a first load fails.
  const error = (!notes.data && notes.error) || (!categories.data && categories.error);
  if (error) {
    return (
      <section className="panel notes" aria-labelledby="notes-title">
        <h2 id="notes-title">Notes</h2>
        <ErrorState
          error={error}
          onRetry={() => {
            if (!notes.data) void notes.refetch();
            if (!categories.data) void categories.refetch();
          }}
        />
      </section>
    );
  }
  if (!notes.data || !categories.data) {
    return (
      <section className="panel notes" aria-labelledby="notes-title">
        <h2 id="notes-title">Notes</h2>
        <Loading label="Loading notes…" />
      </section>
    );
  }
  // Keyed by transaction: another transaction's notes start a new form.
  return (
    <NotesEditor
      key={transactionId}
      transactionId={transactionId}
      saved={notes.data}
      categories={categories.data}
      merchant={merchant}
      suggested={suggested}
      onNext={onNext}
    />
  );
}
