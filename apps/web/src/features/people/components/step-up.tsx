import type { StepUpMethod } from '@card-console/shared/api/session';
import { useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useCallback, useRef, useState } from 'react';
import { FormFooter } from '../../../components/form-footer';
import { apiProblem } from '../../../lib/api-error';
import { signWithPasskey } from '../../../lib/passkey-ceremony';
import { SecondFactorChoices } from '../../session';
import { sessionQueryOptions } from '../../session/api/get-session';
import { fetchStepUpOptions } from '../../session/api/get-step-up-options';
import { stepUp } from '../../session/api/step-up';
import { describeStepUpError } from '../people-errors';

/** The person closed the second-factor check: the change is not made, and nothing is wrong. */
export class StepUpCancelled extends Error {
  constructor() {
    super('The second-factor check was cancelled.');
    this.name = 'StepUpCancelled';
  }
}

export function isStepUpCancelled(error: unknown): boolean {
  return error instanceof StepUpCancelled;
}

interface Asking {
  methods: readonly StepUpMethod[];
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * Changes to people need a recent second factor. `guarded(change)` makes the change; when the
 * BFF answers 403 `step_up_required` it asks for a check (`prompt`, rendered where the caller
 * wants it) and, once the check passes, makes the change once more. Closing the check rejects
 * with StepUpCancelled.
 */
export function useStepUpRetry() {
  const queryClient = useQueryClient();
  const [asking, setAsking] = useState<Asking>();

  const guarded = useCallback(
    async <T,>(change: () => Promise<T>): Promise<T> => {
      try {
        return await change();
      } catch (error) {
        const problem = apiProblem(error, 'step_up_required');
        if (!problem) throw error;
        const fallback = queryClient.getQueryData(sessionQueryOptions().queryKey)?.stepUpMethods;
        const methods = problem.secondFactor.methods.length
          ? problem.secondFactor.methods
          : (fallback ?? ['totp']);
        await new Promise<void>((resolve, reject) => setAsking({ methods, resolve, reject }));
        return change();
      }
    },
    [queryClient],
  );

  const cancel = () => {
    setAsking(undefined);
    asking?.reject(new StepUpCancelled());
  };
  const prompt = asking ? (
    <StepUpForm
      methods={asking.methods}
      onSteppedUp={() => {
        setAsking(undefined);
        asking.resolve();
      }}
      onCancel={cancel}
    />
  ) : null;
  return { guarded, prompt, cancel, asking: asking !== undefined };
}

interface StepUpFormProps {
  methods: readonly StepUpMethod[];
  onSteppedUp: () => void;
  onCancel: () => void;
}

/** A second-factor check on its own (POST /api/session/step-up); renews the cached session. */
function StepUpForm({ methods, onSteppedUp, onCancel }: StepUpFormProps) {
  const queryClient = useQueryClient();
  const [totp, setTotp] = useState('');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
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
      setError(describeStepUpError(caught));
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
    <form className="stack step-up" onSubmit={submit} noValidate aria-label="Confirm it is you">
      <p>Changes to people need a recent second-factor check. The change is made once it passes.</p>
      <SecondFactorChoices
        methods={methods}
        totp={totp}
        onTotpChange={setTotp}
        onTotpComplete={(code) => void check(async () => ({ totp: code }))}
        onPasskey={() =>
          void check(async () => ({ passkey: await signWithPasskey(await fetchStepUpOptions()) }))
        }
        busy={busy}
        returnTo="/people"
        afterProvider="then make the change again"
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
