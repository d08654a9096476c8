import type { StepUpMethod } from '@card-console/shared/api/session';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { TotpField } from '../../../components/totp-field';
import { metaQueryOptions } from '../api/get-meta';
import { askForFactor, ssoStepUpUrl } from '../step-up';

interface SecondFactorChoicesProps {
  methods: readonly StepUpMethod[];
  totp: string;
  onTotpChange: (code: string) => void;
  onPasskey: () => void;
  /** A check is on its way: the passkey button ignores presses (and keeps focus). */
  busy: boolean;
  /** Where the identity provider sends the person back to (when `provider` is offered). */
  returnTo?: string;
  /** What to do once back from the provider, e.g. "then press Reveal again". */
  afterProvider?: string;
  /** Called as the person leaves for the provider: keep what they typed. */
  onLeaveForProvider?: () => void;
  /** Bumped whenever focus should move to the first choice (the server just asked). */
  focusKey?: number;
  /** What is wrong with the code typed, next to the code field. */
  totpError?: string | undefined;
  /** Six digits typed: send them (the form's own submit button stays for anyone who waits). */
  onTotpComplete?: ((code: string) => void) | undefined;
  /** Say what to do under the legend, calmly (never as an error: nothing went wrong yet). */
  instruction?: boolean;
}

/** "Enter the 6-digit code from your authenticator app." (the legend already asks who it is). */
export function factorInstruction(methods: readonly StepUpMethod[]): string {
  const ways = askForFactor(methods).replace(/^Confirm it is you:?\s*/, '');
  return ways ? ways.charAt(0).toUpperCase() + ways.slice(1) : 'Confirm it is you.';
}

/**
 * The ways a person can confirm it is them, as the server offers them: a passkey (first, the
 * preferred factor), the authenticator app's code (sent by the surrounding form), or a fresh
 * sign-in at the company's identity provider (a full-page trip there and back).
 */
export function SecondFactorChoices(props: SecondFactorChoicesProps) {
  const { methods, busy, focusKey } = props;
  const ref = useRef<HTMLFieldSetElement>(null);
  const provider = methods.includes('provider');
  const meta = useQuery({ ...metaQueryOptions(), enabled: provider });
  const label = meta.data?.sso?.label ?? 'your company sign-in';

  useEffect(() => {
    if (!focusKey) return;
    ref.current?.querySelector<HTMLElement>('button, input, a[href]')?.focus();
  }, [focusKey]);

  return (
    <fieldset className="second-factor" ref={ref}>
      <legend>Confirm it is you</legend>
      {props.instruction ? (
        <p className="second-factor-instruction">{factorInstruction(methods)}</p>
      ) : null}
      {methods.includes('passkey') ? (
        <button
          type="button"
          className="primary"
          aria-disabled={busy || undefined}
          onClick={() => {
            if (!busy) props.onPasskey();
          }}
        >
          Use a passkey
        </button>
      ) : null}
      {methods.includes('totp') ? (
        <TotpField
          value={props.totp}
          onChange={props.onTotpChange}
          onComplete={props.onTotpComplete}
          hint={methods.length > 1 ? 'Or the 6 digits your authenticator app shows.' : undefined}
          error={props.totpError}
        />
      ) : null}
      {provider ? (
        <div className="provider-step-up">
          <a
            className="button"
            href={ssoStepUpUrl(props.returnTo ?? '/')}
            onClick={props.onLeaveForProvider}
          >
            Confirm at {label}
          </a>
          <small className="muted">
            You sign in there again and come back here
            {props.afterProvider ? `; ${props.afterProvider}` : ''}.
          </small>
        </div>
      ) : null}
    </fieldset>
  );
}
