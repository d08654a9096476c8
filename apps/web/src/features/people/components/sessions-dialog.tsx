import type { PersonView } from '@card-console/shared/api/people';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Dialog } from '../../../components/dialog';
import { ErrorState } from '../../../components/error-state';
import { formatDateTime } from '../../../lib/format';
import { endAllSessions, endSession, personSessionsQueryOptions } from '../api/people';
import { describePeopleError } from '../people-errors';
import { methodLabels } from '../people-labels';
import { isStepUpCancelled, useStepUpRetry } from './step-up';

/** A person's open sessions: how each started and when it was last used; End one or all. */
export function SessionsDialog({
  person,
  onClose,
  onChanged,
}: {
  person: PersonView;
  onClose: () => void;
  onChanged: () => void;
}) {
  const queryClient = useQueryClient();
  const stepUp = useStepUpRetry();
  const query = useQuery(personSessionsQueryOptions(person.email));
  const [failure, setFailure] = useState<string>();
  const [busy, setBusy] = useState<string>();
  const sessions = query.data?.sessions;

  const end = async (key: string, run: () => Promise<void>) => {
    setBusy(key);
    setFailure(undefined);
    try {
      await stepUp.guarded(run);
      onChanged();
    } catch (caught) {
      if (!isStepUpCancelled(caught)) setFailure(describePeopleError(caught, 'end', person.email));
    } finally {
      setBusy(undefined);
      void queryClient.invalidateQueries({
        queryKey: personSessionsQueryOptions(person.email).queryKey,
      });
    }
  };

  return (
    <Dialog title={`Sessions of ${person.email}`} onClose={onClose} className="sessions-dialog">
      {stepUp.prompt ?? (
        <div className="stack">
          {sessions ? (
            sessions.length === 0 ? (
              <p className="empty">No open sessions.</p>
            ) : (
              <div className="table-wrap">
                <table className="sessions-table">
                  <caption className="visually-hidden">Open sessions</caption>
                  <thead>
                    <tr>
                      <th scope="col">Signed in with</th>
                      <th scope="col">Started</th>
                      <th scope="col">Last seen</th>
                      <th scope="col">
                        <span className="visually-hidden">Actions</span>
                      </th>
                    </tr>
                  </thead>
                  <tbody>
                    {sessions.map((session) => (
                      <tr key={session.id}>
                        <td>
                          {methodLabels[session.method]}
                          {session.current ? (
                            <span className="tag person-you">This session</span>
                          ) : null}
                        </td>
                        <td>{formatDateTime(session.startedAt)}</td>
                        <td>{formatDateTime(session.lastSeenAt)}</td>
                        <td>
                          <button
                            type="button"
                            aria-label={`End the ${methodLabels[session.method]} session started ${formatDateTime(session.startedAt)}`}
                            disabled={busy !== undefined}
                            onClick={() =>
                              void end(session.id, () => endSession(person.email, session.id))
                            }
                          >
                            End
                          </button>
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )
          ) : query.error ? (
            <ErrorState error={query.error} onRetry={() => void query.refetch()} />
          ) : (
            <p className="muted">Loading sessions…</p>
          )}
          {failure ? (
            <p className="form-error" role="alert">
              {failure}
            </p>
          ) : null}
          <div className="actions">
            <button type="button" onClick={onClose}>
              Close
            </button>
            {sessions && sessions.length > 0 ? (
              <button
                type="button"
                className="primary"
                disabled={busy !== undefined}
                onClick={() => void end('all', () => endAllSessions(person.email))}
              >
                End all
              </button>
            ) : null}
          </div>
        </div>
      )}
    </Dialog>
  );
}
