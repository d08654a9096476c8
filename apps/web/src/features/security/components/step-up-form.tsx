import type { StepUpMethod } from '@card-console/shared/api/session';
import { useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useRef, useState } from 'react';
import { FormFooter } from '../../../components/form-footer';
import { signWithPasskey } from '../../../lib/passkey-ceremony';
import { SecondFactorChoices } from '../../session';
import { sessionQueryOptions } from '../../session/api/get-session';
import { fetchStepUpOptions } from '../../session/api/get-step-up-options';
import { stepUp } from '../../session/api/step-up';
import { describeFactorError } from './describe-factor-error';

interface StepUpFormProps {
  methods: readonly StepUpMethod[];
  /** Why the check is asked for: "Confirm it is you before adding a passkey." */
  intro: string;
  /** What to press once back from the identity provider. */
  again: string;
  /** The screen the identity provider sends the person back to. */
  returnTo?: string;
  /** The form's accessible name, where nothing around it names the check. */
  label?: string;
  /** Send the code as soon as six digits are typed, not only on Confirm. */
  submitOnComplete?: boolean;
  onSteppedUp: () => void;
  onCancel: () => void;
}

/**
 * A second-factor check on its own (POST /api/session/step-up), before a change that needs a
 * recent one (a person's own second factors, or a change to people); the renewed session
 * replaces the cached one.
 */
export function StepUpForm({
  methods,
  intro,
  again,
  returnTo = '/security',
  label,
  submitOnComplete = false,
  onSteppedUp,
  onCancel,
}: StepUpFormProps) {
  const queryClient = useQueryClient();
  const [totp, setTotp] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  // The code sent on its sixth digit and an Enter right after must not make two checks.
  const sending = useRef(false);

  const check = async (proof: () => Promise<Parameters<typeof stepUp>[0]>) => {
    if (sending.current) return;
    sending.current = true;
    setBusy(true);
    setError(undefined);
    try {
      const session = await stepUp(await proof());
      queryClient.setQueryData(sessionQueryOptions().queryKey, session);
      onSteppedUp();
    } catch (caught) {
      setError(describeFactorError(caught));
      setTotp('');
    } finally {
      sending.current = false;
      setBusy(false);
    }
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!/^\d{6}$/.test(totp)) {
      setError('Enter the 6-digit code from your authenticator app.');
      return;
    }
    void check(async () => ({ totp }));
  };

  return (
    <form className="stack step-up" onSubmit={submit} noValidate aria-label={label}>
      <p>{intro}</p>
      <SecondFactorChoices
        methods={methods}
        totp={totp}
        onTotpChange={setTotp}
        onTotpComplete={
          submitOnComplete ? (code) => void check(async () => ({ totp: code })) : undefined
        }
        onPasskey={() =>
          void check(async () => ({ passkey: await signWithPasskey(await fetchStepUpOptions()) }))
        }
        busy={busy}
        returnTo={returnTo}
        afterProvider={again}
        focusKey={1}
      />
      <FormFooter error={error} onCancel={onCancel}>
        {methods.includes('totp') ? (
          <button type="submit" className="primary" disabled={busy}>
            {busy ? 'Checking…' : 'Confirm'}
          </button>
        ) : null}
      </FormFooter>
    </form>
  );
}
