import type { PasskeySummary, SecondFactorsResponse } from '@card-console/shared/api/security';
import type { SessionResponse } from '@card-console/shared/api/session';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { isSteppedUp } from '../../session';
import { sessionQueryOptions } from '../../session/api/get-session';
import { secondFactorsQueryOptions } from '../api/get-second-factors';
import { removePasskey } from '../api/remove-passkey';
import { AddPasskeyForm } from './add-passkey-form';
import { describeFactorError } from './describe-factor-error';
import { GuardedActionDialog } from './guarded-action-dialog';
import { PasskeyRow } from './passkey-row';

interface PasskeysSectionProps {
  factors: SecondFactorsResponse;
  session: SessionResponse;
  /** Says what happened, in the page's live region. */
  onResult: (message: string) => void;
}

export function PasskeysSection({ factors, session, onResult }: PasskeysSectionProps) {
  const queryClient = useQueryClient();
  const [editingId, setEditingId] = useState<string | undefined>();
  const [removing, setRemoving] = useState<PasskeySummary | undefined>();
  const [focusHeading, setFocusHeading] = useState(0);
  const heading = useRef<HTMLHeadingElement>(null);
  const { passkeys } = factors;

  // After a removal the row (and its button) is gone: focus goes to the list's heading.
  useEffect(() => {
    if (focusHeading) heading.current?.focus();
  }, [focusHeading]);

  const update = (change: (list: PasskeySummary[]) => PasskeySummary[]) => {
    queryClient.setQueryData(secondFactorsQueryOptions().queryKey, (old) =>
      old ? { ...old, passkeys: change(old.passkeys) } : old,
    );
    // What the person can step up with depends on whether they have a passkey.
    void queryClient.invalidateQueries({ queryKey: sessionQueryOptions().queryKey });
  };

  const remove = async (passkey: PasskeySummary) => {
    await removePasskey(passkey.id);
    update((list) => list.filter((p) => p.id !== passkey.id));
    setRemoving(undefined);
    setFocusHeading((n) => n + 1);
    onResult(`Passkey “${passkey.name}” removed.`);
  };

  return (
    <section className="panel" aria-labelledby="passkeys-title">
      <h2 id="passkeys-title" ref={heading} tabIndex={-1}>
        Passkeys
      </h2>
      <p className="muted">
        A passkey confirms it is you with this device's screen lock or a security key: nothing to
        type, and it cannot be phished.
      </p>
      {passkeys.length === 0 ? (
        <p className="empty">You have no passkeys yet.</p>
      ) : (
        <div className="table-wrap">
          <table aria-label="Your passkeys" className="passkeys-table rows-as-cards">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Added</th>
                <th scope="col">Last used</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {passkeys.map((p) => (
                <PasskeyRow
                  key={p.id}
                  passkey={p}
                  editing={editingId === p.id}
                  onEdit={(on) => setEditingId(on ? p.id : undefined)}
                  onRenamed={(renamed) => {
                    update((list) => list.map((q) => (q.id === renamed.id ? renamed : q)));
                    onResult(`Passkey renamed to “${renamed.name}”.`);
                  }}
                  onRemove={() => setRemoving(p)}
                />
              ))}
            </tbody>
          </table>
        </div>
      )}
      <AddPasskeyForm
        session={session}
        onAdded={(added) => {
          update((list) => [...list.filter((p) => p.id !== added.id), added]);
          onResult(`Passkey “${added.name}” added.`);
        }}
      />
      {removing ? (
        <GuardedActionDialog
          title="Remove passkey"
          actionLabel="Remove passkey"
          stepUpIntro="Confirm it is you; the passkey is then removed."
          again={`then press Remove ${removing.name} again`}
          needsStepUp={!isSteppedUp(session)}
          methods={session.stepUpMethods}
          run={() => remove(removing)}
          describeError={(error) =>
            describeFactorError(
              error,
              'This is your only passkey and authenticator-app codes are off, so you would have no way to confirm it is you. Add another passkey or turn codes back on first.',
            )
          }
          onClose={() => setRemoving(undefined)}
        >
          <p>
            Remove “{removing.name}”? It will no longer sign you in or confirm it is you. The
            passkey itself stays on the device until you delete it there.
          </p>
        </GuardedActionDialog>
      ) : null}
    </section>
  );
}
