import type { PersonView } from '@card-console/shared/api/people';
import { useState } from 'react';
import { Dialog } from '../../../components/dialog';
import { FormFooter } from '../../../components/form-footer';
import { removePerson } from '../api/people';
import { describePeopleError } from '../people-errors';
import { isStepUpCancelled, useStepUpRetry } from './step-up';

/** Asks before removing someone, naming them; a refusal (the last admin) is said here. */
export function RemoveDialog({
  person,
  onClose,
  onRemoved,
}: {
  person: PersonView;
  onClose: () => void;
  onRemoved: () => void;
}) {
  const stepUp = useStepUpRetry();
  const [failure, setFailure] = useState<string>();
  const [busy, setBusy] = useState(false);

  const remove = async () => {
    setBusy(true);
    setFailure(undefined);
    try {
      await stepUp.guarded(() => removePerson(person.email));
      onRemoved();
    } catch (caught) {
      if (!isStepUpCancelled(caught)) {
        setFailure(describePeopleError(caught, 'remove', person.email));
      }
    } finally {
      setBusy(false);
    }
  };

  return (
    <Dialog title={`Remove ${person.email}?`} onClose={onClose}>
      {stepUp.prompt ?? (
        <div className="stack">
          {person.source === 'sso' ? (
            // Single sign-on adds a person at their first sign-on: removed here, the identity
            // provider's next sign-on adds them again, with its role. Disabling keeps them out.
            <p>
              Their open sessions end now, and what they did stays in the audit trail. They sign in
              through your identity provider, which adds them again at their next sign-on: to keep
              them out, disable them here or remove them there.
            </p>
          ) : (
            <p>
              {person.email} can no longer sign in, and their open sessions end now. What they did
              stays in the audit trail. To let them back in, invite them again.
            </p>
          )}
          <p>
            What was theirs alone goes with them: receipts waiting in their inbox (those attached
            stay on their transactions), their forwarding address, their own alert rules and their
            second factors. Whoever is given this email later starts without any of it.
          </p>
          <FormFooter error={failure} onCancel={onClose}>
            <button type="button" className="primary" disabled={busy} onClick={() => void remove()}>
              Remove
            </button>
          </FormFooter>
        </div>
      )}
    </Dialog>
  );
}
