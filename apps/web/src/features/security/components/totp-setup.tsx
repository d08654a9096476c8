import type { TotpSetupResponse } from '@card-console/shared/api/security';
import type { SessionResponse, StepUpMethod } from '@card-console/shared/api/session';
import { useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useId, useRef, useState } from 'react';
import { Field } from '../../../components/field';
import { useQrCode } from '../../../components/use-qr-code';
import { apiProblem, isApiError } from '../../../lib/api-error';
import { isSteppedUp } from '../../session';
import { sessionQueryOptions } from '../../session/api/get-session';
import { secondFactorsQueryOptions } from '../api/get-second-factors';
import { confirmTotp, startTotpSetup } from '../api/setup-totp';
import { describeFactorError } from './describe-factor-error';
import { StepUpForm } from './step-up-form';

interface TotpSetupProps {
  session: SessionResponse;
  /** The person has an authenticator app already: the new one replaces it. */
  replacing: boolean;
  onResult: (message: string) => void;
}

/** The secret in groups of four, as people type it into an app. */
export const groupedSecret = (secret: string) => secret.match(/.{1,4}/g)?.join(' ') ?? secret;

function describeSetupError(error: unknown): string {
  if (isApiError(error)) {
    switch (error.code) {
      case 'invalid_totp':
        // The server says whether another try is left or the setup must start again.
        return error.message;
      case 'no_totp_setup':
        return 'This setup has expired. Start again: you will get a new key.';
      case 'recent_sign_in_required':
        return 'For your first second factor, sign out and sign in again, then set it up within 5 minutes.';
    }
  }
  return describeFactorError(error);
}

/**
 * Sets up an authenticator app: a new secret from the server, shown to be typed (or opened as an
 * otpauth:// link), confirmed with a code from the app. Needs a step-up, or for a first second
 * factor a recent sign-in, as adding a passkey does.
 */
export function TotpSetup({ session, replacing, onResult }: TotpSetupProps) {
  const queryClient = useQueryClient();
  const titleId = useId();
  const [pending, setPending] = useState<TotpSetupResponse | undefined>();
  const [code, setCode] = useState('');
  const [codeError, setCodeError] = useState<string | undefined>();
  const [stepUpWith, setStepUpWith] = useState<readonly StepUpMethod[] | undefined>();
  const [then, setThen] = useState<'start' | 'confirm'>('start');
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const startButton = useRef<HTMLButtonElement>(null);
  const qr = useQrCode(pending?.uri);
  const label = replacing ? 'Replace authenticator app' : 'Set up an authenticator app';

  const askStepUp = (methods: readonly StepUpMethod[], next: 'start' | 'confirm') => {
    setThen(next);
    setStepUpWith(methods);
  };

  const start = async () => {
    setBusy(true);
    setError(undefined);
    try {
      setPending(await startTotpSetup());
      setCode('');
      setCodeError(undefined);
    } catch (caught) {
      const stepUp = apiProblem(caught, 'step_up_required');
      if (stepUp) askStepUp(stepUp.secondFactor.methods, 'start');
      else setError(describeSetupError(caught));
    } finally {
      setBusy(false);
    }
  };

  const confirm = async (typed: string) => {
    setBusy(true);
    setError(undefined);
    try {
      const answer = await confirmTotp({ code: typed });
      queryClient.setQueryData(secondFactorsQueryOptions().queryKey, answer);
      void queryClient.invalidateQueries({ queryKey: sessionQueryOptions().queryKey });
      setPending(undefined);
      setCode('');
      onResult(
        replacing
          ? 'Authenticator app replaced: codes from the new one now confirm it is you; the old one no longer works.'
          : 'Authenticator app set up: its codes now confirm it is you, here and when you sign in.',
      );
    } catch (caught) {
      const stepUp = apiProblem(caught, 'step_up_required');
      if (stepUp) {
        askStepUp(stepUp.secondFactor.methods, 'confirm');
      } else {
        setError(describeSetupError(caught));
        if (isApiError(caught) && caught.code === 'no_totp_setup') setPending(undefined);
        else if (isApiError(caught) && /Start again/.test(caught.message)) setPending(undefined);
      }
    } finally {
      setBusy(false);
    }
  };

  const onStart = () => {
    if (busy) return;
    setError(undefined);
    if (!isSteppedUp(session) && session.stepUpMethods.length > 0) {
      askStepUp(session.stepUpMethods, 'start');
      return;
    }
    void start();
  };

  const onConfirm = (event: FormEvent) => {
    event.preventDefault();
    if (busy) return;
    const typed = code.replace(/\s/g, '');
    if (!/^\d{6}$/.test(typed)) {
      setCodeError('Type the 6-digit code your authenticator app shows.');
      return;
    }
    setCodeError(undefined);
    setCode(typed);
    void confirm(typed);
  };

  return (
    <div className="stack totp-setup">
      {pending ? (
        <form className="totp-setup-form" aria-labelledby={titleId} onSubmit={onConfirm} noValidate>
          <h3 id={titleId}>{label}</h3>
          <ol className="totp-setup-steps">
            <li>
              In your authenticator app, add an account: scan this code, or type the key below (or{' '}
              <a href={pending.uri}>Open in authenticator app</a> on this device).
              {qr ? (
                <img
                  className="totp-setup-qr"
                  src={qr}
                  alt="QR code for your authenticator app"
                  width={180}
                  height={180}
                />
              ) : null}
              <code className="totp-setup-secret" data-testid="totp-secret">
                {groupedSecret(pending.secret)}
              </code>
              <small className="muted">
                Only you should see this key. It is shown once: confirm a code from it within 10
                minutes.
              </small>
            </li>
            <li>
              <Field
                label="6-digit code from the app"
                hint="The code the app now shows for Card Console."
                error={codeError}
              >
                {(control) => (
                  <input
                    {...control}
                    name="totp-setup-code"
                    inputMode="numeric"
                    autoComplete="one-time-code"
                    maxLength={7}
                    value={code}
                    onChange={(e) => setCode(e.target.value)}
                  />
                )}
              </Field>
            </li>
          </ol>
          <div className="row-actions">
            <button type="submit" className="primary" aria-disabled={busy || undefined}>
              {busy ? 'Checking the code…' : 'Confirm code'}
            </button>
            <button
              type="button"
              onClick={() => {
                setPending(undefined);
                setError(undefined);
                startButton.current?.focus();
              }}
            >
              Cancel
            </button>
          </div>
        </form>
      ) : (
        <div>
          <button
            ref={startButton}
            type="button"
            className={replacing ? undefined : 'primary'}
            aria-disabled={busy || undefined}
            onClick={onStart}
          >
            {busy ? 'Making a new key…' : label}
          </button>
          {replacing ? (
            <small className="muted">
              {' '}
              The codes your current app shows stop working once the new one is confirmed.
            </small>
          ) : null}
        </div>
      )}
      {stepUpWith ? (
        <StepUpForm
          methods={stepUpWith}
          intro={
            then === 'start'
              ? 'Confirm it is you before setting up an authenticator app.'
              : 'Confirm it is you; the new authenticator app is then set up.'
          }
          again={`then press ${then === 'start' ? label : 'Confirm code'} again`}
          onSteppedUp={() => {
            setStepUpWith(undefined);
            void (then === 'start' ? start() : confirm(code.replace(/\s/g, '')));
          }}
          onCancel={() => {
            setStepUpWith(undefined);
            startButton.current?.focus();
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
