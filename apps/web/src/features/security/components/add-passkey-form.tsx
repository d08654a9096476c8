import { type PasskeySummary, passkeyNameSchema } from '@card-console/shared/api/security';
import type { SessionResponse, StepUpMethod } from '@card-console/shared/api/session';
import { type FormEvent, useRef, useState } from 'react';
import { Field } from '../../../components/field';
import { apiProblem } from '../../../lib/api-error';
import { createPasskey } from '../../../lib/passkey-ceremony';
import { isSteppedUp } from '../../session';
import { addPasskey } from '../api/add-passkey';
import { fetchRegistrationOptions } from '../api/get-registration-options';
import { describeFactorError } from './describe-factor-error';
import { StepUpForm } from './step-up-form';

export const DEFAULT_PASSKEY_NAME = 'Passkey on this device';

interface AddPasskeyFormProps {
  session: SessionResponse;
  onAdded: (passkey: PasskeySummary) => void;
}

/**
 * Names and makes a new passkey. Enrolling needs a step-up within 5 minutes: without one the
 * check is asked for here first, and the passkey is made right after it. A person's first
 * second factor needs a sign-in within the last 5 minutes instead.
 */
export function AddPasskeyForm({ session, onAdded }: AddPasskeyFormProps) {
  const [name, setName] = useState(DEFAULT_PASSKEY_NAME);
  const [nameError, setNameError] = useState<string | undefined>();
  const [stepUpWith, setStepUpWith] = useState<readonly StepUpMethod[] | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const addButton = useRef<HTMLButtonElement>(null);

  const create = async (checkedName: string) => {
    setBusy(true);
    setError(undefined);
    try {
      const response = await createPasskey(await fetchRegistrationOptions());
      onAdded(await addPasskey({ name: checkedName, response }));
      setName(DEFAULT_PASSKEY_NAME);
    } catch (caught) {
      const stepUp = apiProblem(caught, 'step_up_required');
      if (stepUp) {
        setStepUpWith(stepUp.secondFactor.methods);
      } else {
        setError(describeFactorError(caught));
      }
    } finally {
      setBusy(false);
    }
  };

  const checkedName = (): string | undefined => {
    const parsed = passkeyNameSchema.safeParse(name);
    setNameError(parsed.success ? undefined : parsed.error.issues[0]?.message);
    return parsed.success ? parsed.data : undefined;
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const checked = checkedName();
    if (checked === undefined || busy) return;
    // A person with no second factor yet has nothing to confirm with: the BFF lets the first one
    // in shortly after signing in (and says so when it is too late).
    if (!isSteppedUp(session) && session.stepUpMethods.length > 0) {
      setError(undefined);
      setStepUpWith(session.stepUpMethods);
      return;
    }
    void create(checked);
  };

  return (
    <div className="stack add-passkey">
      <form className="filters" aria-label="Add a passkey" onSubmit={submit} noValidate>
        <Field
          label="Name for the new passkey"
          hint="Say where it lives, so you can tell your passkeys apart."
          error={nameError}
        >
          {(control) => (
            <input
              {...control}
              name="passkey-name"
              value={name}
              onChange={(e) => setName(e.target.value)}
            />
          )}
        </Field>
        <button ref={addButton} type="submit" aria-disabled={busy || undefined}>
          {busy ? 'Adding a passkey…' : 'Add a passkey'}
        </button>
      </form>
      {stepUpWith ? (
        <StepUpForm
          methods={stepUpWith}
          intro="Confirm it is you before adding a passkey; your browser then asks to make it."
          again="then press Add a passkey again"
          onSteppedUp={() => {
            setStepUpWith(undefined);
            addButton.current?.focus();
            const checked = checkedName();
            if (checked !== undefined) void create(checked);
          }}
          onCancel={() => {
            setStepUpWith(undefined);
            addButton.current?.focus();
          }}
        />
      ) : null}
      {error ? (
        <p className="form-error" role="alert">
          {error}
        </p>
      ) : null}
    </div>
  );
}
