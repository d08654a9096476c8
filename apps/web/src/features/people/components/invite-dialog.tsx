import {
  INVITATION_DAYS,
  type InvitationCreated,
  invitationInputSchema,
} from '@card-console/shared/api/people';
import { type FormEvent, useState } from 'react';
import { Dialog } from '../../../components/dialog';
import { Field } from '../../../components/field';
import { FormFooter } from '../../../components/form-footer';
import { ShownOnce } from '../../../components/shown-once';
import { formatDateTime } from '../../../lib/format';
import { createInvitation } from '../api/people';
import { describePeopleError } from '../people-errors';
import { roleLabels } from '../people-labels';
import { isStepUpCancelled, useStepUpRetry } from './step-up';

type FieldName = 'email' | 'role' | 'days';

/**
 * Invites someone: email, role and how many days the link stays open. The link comes back in
 * the answer only, so it is shown here once, with a Copy button; closing the dialog forgets it.
 */
export function InviteDialog({
  onClose,
  onInvited,
}: {
  onClose: () => void;
  onInvited: () => void;
}) {
  const stepUp = useStepUpRetry();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<'finance' | 'admin'>('finance');
  const [days, setDays] = useState(String(INVITATION_DAYS.default));
  const [errors, setErrors] = useState<Partial<Record<FieldName, string>>>({});
  const [failure, setFailure] = useState<string>();
  const [busy, setBusy] = useState(false);
  const [created, setCreated] = useState<InvitationCreated>();

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setFailure(undefined);
    const parsed = invitationInputSchema.safeParse({
      email,
      role,
      days: days.trim() === '' ? undefined : Number(days),
    });
    if (!parsed.success) {
      const next: Partial<Record<FieldName, string>> = {};
      for (const issue of parsed.error.issues) {
        const name = issue.path[0] as FieldName;
        next[name] ??= issue.message;
      }
      setErrors(next);
      return;
    }
    setErrors({});
    setBusy(true);
    try {
      const answer = await stepUp.guarded(() => createInvitation(parsed.data));
      setCreated(answer);
      onInvited();
    } catch (caught) {
      if (!isStepUpCancelled(caught)) {
        setFailure(describePeopleError(caught, 'invite', parsed.data.email));
      }
    } finally {
      setBusy(false);
    }
  };

  if (created) {
    return (
      <Dialog title={`${created.email} is invited`} onClose={onClose}>
        <ShownOnce
          label="Invitation link"
          value={created.link}
          name="the link"
          onDone={onClose}
          after={
            // Email delivery is set up and the message went out; the link is still theirs to send.
            created.emailed ? <p>We emailed the link to {created.email} too.</p> : null
          }
        >
          <p>
            Send this link to {created.email} ({roleLabels[created.role].toLowerCase()}). It is
            shown only now: copy it before closing. It works once and expires at{' '}
            <strong>{formatDateTime(created.expiresAt)}</strong>.
          </p>
        </ShownOnce>
      </Dialog>
    );
  }

  return (
    <Dialog title="Invite someone" onClose={onClose}>
      {stepUp.prompt ?? (
        <form className="stack invite-form" onSubmit={submit} noValidate>
          <Field label="Email" error={errors.email}>
            {(control) => (
              <input
                {...control}
                type="email"
                autoComplete="off"
                value={email}
                onChange={(e) => setEmail(e.target.value)}
              />
            )}
          </Field>
          <Field label="Role" error={errors.role}>
            {(control) => (
              <select
                {...control}
                value={role}
                onChange={(e) => setRole(e.target.value as 'finance' | 'admin')}
              >
                <option value="finance">{roleLabels.finance}</option>
                <option value="admin">{roleLabels.admin}</option>
              </select>
            )}
          </Field>
          <Field
            label="Link stays open (days)"
            hint={`From 1 to ${INVITATION_DAYS.max}.`}
            error={errors.days}
          >
            {(control) => (
              <input
                {...control}
                type="number"
                inputMode="numeric"
                min={1}
                max={INVITATION_DAYS.max}
                value={days}
                onChange={(e) => setDays(e.target.value)}
              />
            )}
          </Field>
          {role === 'admin' ? (
            <p className="muted">
              An admin sets up an authenticator app while signing up: they need it at hand.
            </p>
          ) : null}
          <FormFooter error={failure} onCancel={onClose}>
            <button type="submit" className="primary" disabled={busy}>
              {busy ? 'Inviting…' : 'Invite'}
            </button>
          </FormFooter>
        </form>
      )}
    </Dialog>
  );
}
