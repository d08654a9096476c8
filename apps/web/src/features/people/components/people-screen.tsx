import type {
  OpenInvitation,
  PeopleList,
  PersonView,
  RoleChange,
} from '@card-console/shared/api/people';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { CellLabel } from '../../../components/cell-label';
import { Dialog } from '../../../components/dialog';
import { ErrorState } from '../../../components/error-state';
import { FormFooter } from '../../../components/form-footer';
import { useDocumentTitle } from '../../../components/use-document-title';
import { formatDateTime } from '../../../lib/format';
import { changeRole, peopleQueryOptions, setDisabled, withdrawInvitation } from '../api/people';
import { describePeopleError, type PeopleChange } from '../people-errors';
import { methodLabels, personStatus, roleLabels, sourceLabels } from '../people-labels';
import { InviteDialog } from './invite-dialog';
import { RemoveDialog } from './remove-dialog';
import { SessionsDialog } from './sessions-dialog';
import { isStepUpCancelled, useStepUpRetry } from './step-up';
import '../people.css';

interface PeopleScreenProps {
  /** Undefined while the list failed (`error`) or is on its way. */
  list: PeopleList | undefined;
  error: unknown;
  onRetry: () => void;
}

type Outcome = { ok: boolean; message: string };

/** The app's badge colours: active green, invited amber, disabled red. */
const statusBadge = {
  Active: 'badge-active',
  Invited: 'badge-pending',
  Disabled: 'badge-closed',
} as const;

/**
 * Who may sign in and the invitations not yet taken up; an admin invites, changes roles,
 * disables, removes and ends sessions here. Every change may first ask for a second factor.
 */
export function PeopleScreen({ list, error, onRetry }: PeopleScreenProps) {
  useDocumentTitle('People');
  const queryClient = useQueryClient();
  const stepUp = useStepUpRetry();
  const [outcome, setOutcome] = useState<Outcome>();
  const [busy, setBusy] = useState<string>();
  const [inviting, setInviting] = useState(false);
  const [removing, setRemoving] = useState<PersonView>();
  const [sessionsOf, setSessionsOf] = useState<PersonView>();

  const refresh = () => queryClient.invalidateQueries({ queryKey: peopleQueryOptions().queryKey });

  /** Makes a change from the table (asking for a second factor if need be) and says how it went. */
  const act = async (
    key: string,
    change: PeopleChange,
    email: string,
    run: () => Promise<unknown>,
    done: string,
  ) => {
    setBusy(key);
    setOutcome(undefined);
    try {
      await stepUp.guarded(run);
      setOutcome({ ok: true, message: done });
    } catch (caught) {
      if (!isStepUpCancelled(caught)) {
        setOutcome({ ok: false, message: describePeopleError(caught, change, email) });
      }
    } finally {
      setBusy(undefined);
      void refresh();
    }
  };

  // A role is changed on purpose: the row's choice asks first (a slip of the select re-roles no one).
  const [roleChange, setRoleChange] = useState<{ person: PersonView; role: RoleChange['role'] }>();
  const onRole = (person: PersonView, role: RoleChange['role']) =>
    act(
      `role:${person.email}`,
      'role',
      person.email,
      () => changeRole(person.email, { role }),
      `${person.email} is now ${roleLabels[role].toLowerCase()}.`,
    );
  const onDisabled = (person: PersonView, disabled: boolean) =>
    act(
      `disabled:${person.email}`,
      disabled ? 'disable' : 'enable',
      person.email,
      () => setDisabled(person.email, disabled),
      disabled
        ? `${person.email} is disabled: they cannot sign in, and their sessions ended.`
        : `${person.email} may sign in again.`,
    );
  const onWithdraw = (invitation: OpenInvitation) =>
    act(
      `withdraw:${invitation.email}`,
      'withdraw',
      invitation.email,
      () => withdrawInvitation(invitation.email),
      `The invitation for ${invitation.email} is withdrawn: its link no longer works.`,
    );

  return (
    <section aria-labelledby="people-title" className="people">
      <div className="screen-header">
        <h1 id="people-title">People</h1>
        <button type="button" className="primary" onClick={() => setInviting(true)}>
          Invite someone
        </button>
      </div>
      <p className="muted">
        Who may sign in to Card Console, and with which role. Admins manage cards, people and the
        chart of accounts; finance reviews and exports.
      </p>
      {outcome ? (
        outcome.ok ? (
          <p className="notice" role="status">
            {outcome.message}
          </p>
        ) : (
          <p className="form-error" role="alert">
            {outcome.message}
          </p>
        )
      ) : null}
      {list ? (
        <>
          <PeopleTable
            people={list.people}
            busy={busy}
            onRole={(person, role) => setRoleChange({ person, role })}
            onDisabled={onDisabled}
            onRemove={setRemoving}
            onSessions={setSessionsOf}
          />
          <InvitationsPanel invitations={list.invitations} busy={busy} onWithdraw={onWithdraw} />
        </>
      ) : error ? (
        <ErrorState error={error} onRetry={onRetry} />
      ) : (
        <p className="muted">Loading people…</p>
      )}
      {stepUp.prompt ? (
        <Dialog title="Confirm it is you" onClose={() => stepUp.cancel()}>
          {stepUp.prompt}
        </Dialog>
      ) : null}
      {roleChange ? (
        <Dialog
          title={`Make ${roleChange.person.email} ${roleLabels[roleChange.role].toLowerCase()}?`}
          onClose={() => setRoleChange(undefined)}
        >
          <div className="stack">
            <p>{ROLE_MEANS[roleChange.role]}</p>
            <FormFooter onCancel={() => setRoleChange(undefined)}>
              <button
                type="button"
                className="primary"
                onClick={() => {
                  const { person, role } = roleChange;
                  setRoleChange(undefined);
                  void onRole(person, role);
                }}
              >
                Make {roleLabels[roleChange.role].toLowerCase()}
              </button>
            </FormFooter>
          </div>
        </Dialog>
      ) : null}
      {inviting ? (
        <InviteDialog onClose={() => setInviting(false)} onInvited={() => void refresh()} />
      ) : null}
      {removing ? (
        <RemoveDialog
          person={removing}
          onClose={() => setRemoving(undefined)}
          onRemoved={() => {
            setOutcome({ ok: true, message: `${removing.email} is removed.` });
            setRemoving(undefined);
            void refresh();
          }}
        />
      ) : null}
      {sessionsOf ? (
        <SessionsDialog
          person={sessionsOf}
          onClose={() => setSessionsOf(undefined)}
          onChanged={() => void refresh()}
        />
      ) : null}
    </section>
  );
}

/** What a new role lets the person do, said before it is given. */
const ROLE_MEANS: Record<RoleChange['role'], string> = {
  admin:
    'Admins change cards and their limits, reveal card numbers, create sub accounts, and manage people and policies.',
  finance:
    'Finance people read and export everything and close the month, but change no card, person or policy.',
};

interface PeopleTableProps {
  people: PersonView[];
  busy: string | undefined;
  onRole: (person: PersonView, role: RoleChange['role']) => void;
  onDisabled: (person: PersonView, disabled: boolean) => void;
  onRemove: (person: PersonView) => void;
  onSessions: (person: PersonView) => void;
}

function PeopleTable({ people, ...row }: PeopleTableProps) {
  return (
    <section className="panel people-panel" aria-labelledby="people-list-title">
      <h2 id="people-list-title">Everyone</h2>
      {people.length === 0 ? (
        <p className="empty">Nobody yet.</p>
      ) : (
        <div className="table-wrap">
          <table className="people-table rows-as-cards">
            <caption className="visually-hidden">People who may sign in</caption>
            <thead>
              <tr>
                <th scope="col">Email</th>
                <th scope="col">Role</th>
                <th scope="col">Status</th>
                <th scope="col">Came by</th>
                <th scope="col">Last sign-in</th>
                <th scope="col" className="num">
                  Sessions
                </th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {people.map((person) => (
                <PersonRow key={person.email} person={person} {...row} />
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

function PersonRow({
  person,
  busy,
  onRole,
  onDisabled,
  onRemove,
  onSessions,
}: Omit<PeopleTableProps, 'people'> & { person: PersonView }) {
  const { email } = person;
  const status = personStatus(person);
  return (
    <tr>
      <th scope="row" className="person-email">
        <span className="person-email-text">{email}</span>
        {person.you ? <span className="tag person-you">You</span> : null}
      </th>
      <td>
        {person.source === 'sso' ? (
          <span className="person-role-fixed">
            {roleLabels[person.role]}
            <small className="muted">set by your identity provider</small>
          </span>
        ) : (
          <select
            aria-label={`Role of ${email}`}
            value={person.role}
            disabled={busy === `role:${email}`}
            onChange={(event) => onRole(person, event.target.value as RoleChange['role'])}
          >
            <option value="finance">{roleLabels.finance}</option>
            <option value="admin">{roleLabels.admin}</option>
          </select>
        )}
      </td>
      <td>
        <span className={`badge ${statusBadge[status]}`}>{status}</span>
      </td>
      <td>
        <CellLabel>Came by</CellLabel>
        {sourceLabels[person.source]}
      </td>
      <td className="person-last">
        <CellLabel>Last sign-in</CellLabel>
        {person.lastSignIn ? (
          <>
            {formatDateTime(person.lastSignIn.at)}
            <small className="muted person-method">
              with {methodLabels[person.lastSignIn.method]}
            </small>
          </>
        ) : (
          <span className="muted">Never</span>
        )}
      </td>
      <td className="num">
        <CellLabel>Sessions</CellLabel>
        {person.activeSessions}
      </td>
      <td>
        <div className="person-actions">
          {/* Not for oneself; someone invited who has not signed up has no sign-in to stop. */}
          {person.you || person.pending ? null : (
            <button
              type="button"
              aria-label={`${person.disabled ? 'Enable' : 'Disable'} ${email}`}
              disabled={busy === `disabled:${email}`}
              onClick={() => onDisabled(person, !person.disabled)}
            >
              {person.disabled ? 'Enable' : 'Disable'}
            </button>
          )}
          {person.pending ? null : (
            <button
              type="button"
              aria-label={`Sessions of ${email}`}
              onClick={() => onSessions(person)}
            >
              Sessions
            </button>
          )}
          {person.you ? null : (
            <button type="button" aria-label={`Remove ${email}`} onClick={() => onRemove(person)}>
              Remove
            </button>
          )}
        </div>
      </td>
    </tr>
  );
}

function InvitationsPanel({
  invitations,
  busy,
  onWithdraw,
}: {
  invitations: OpenInvitation[];
  busy: string | undefined;
  onWithdraw: (invitation: OpenInvitation) => void;
}) {
  return (
    <section className="panel people-panel" aria-labelledby="invitations-title">
      <h2 id="invitations-title">Open invitations</h2>
      {invitations.length === 0 ? (
        <p className="empty">No open invitations.</p>
      ) : (
        <div className="table-wrap">
          <table className="invitations-table rows-as-cards">
            <caption className="visually-hidden">Invitations not yet taken up</caption>
            <thead>
              <tr>
                <th scope="col">Email</th>
                <th scope="col">Role</th>
                <th scope="col">Invited by</th>
                <th scope="col">Expires</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {invitations.map((invitation) => (
                <tr key={invitation.email}>
                  <th scope="row" className="person-email">
                    <span className="person-email-text">{invitation.email}</span>
                  </th>
                  <td>
                    <CellLabel>Role</CellLabel>
                    {roleLabels[invitation.role]}
                  </td>
                  <td>
                    <CellLabel>Invited by</CellLabel>
                    {invitation.invitedBy}
                  </td>
                  <td>
                    <CellLabel>Expires</CellLabel>
                    {formatDateTime(invitation.expiresAt)}
                  </td>
                  <td>
                    <button
                      type="button"
                      aria-label={`Withdraw the invitation for ${invitation.email}`}
                      disabled={busy === `withdraw:${invitation.email}`}
                      onClick={() => onWithdraw(invitation)}
                    >
                      Withdraw
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
