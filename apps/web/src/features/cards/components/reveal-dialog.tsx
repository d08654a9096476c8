import {
  type RevealBody,
  type RevealResponse,
  revealBodySchema,
} from '@card-console/shared/api/cards';
import type { StepUpMethod } from '@card-console/shared/api/session';
import { useLocation } from '@tanstack/react-router';
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { Dialog } from '../../../components/dialog';
import { Field } from '../../../components/field';
import { FormFooter } from '../../../components/form-footer';
import { isApiError } from '../../../lib/api-error';
import { isPasskeyError, signWithPasskey } from '../../../lib/passkey-ceremony';
import { SecondFactorChoices } from '../../session';
import { fetchStepUpOptions } from '../../session/api/get-step-up-options';
import { revealCard } from '../api/reveal-card';
import { dropRevealDraft, keepRevealDraft, peekRevealDraft } from '../reveal-draft';

/** Reasons people give most, one press each; the free text stays for anything else. */
export const PRESET_REASONS = [
  'Card holder on the phone',
  'Vendor payment',
  'Subscription update',
] as const;

interface RevealDialogProps {
  cardId: string;
  /** The session's step-up has lapsed: ask for a second factor up front. */
  needsFactor: boolean;
  /** The ways this person can step up (the session's `stepUpMethods`). */
  methods: readonly StepUpMethod[];
  onRevealed: (secrets: RevealResponse, steppedUp: boolean) => void;
  onClose: () => void;
}

/** Asks why (for the audit trail) and, when the step-up lapsed, for a fresh second factor. */
export function RevealDialog({
  cardId,
  needsFactor,
  methods,
  onRevealed,
  onClose,
}: RevealDialogProps) {
  const returnTo = useLocation({ select: (l) => l.href });
  // Back from confirming at the identity provider: the reason typed before is still here.
  const [reason, setReason] = useState(() => peekRevealDraft(cardId) ?? '');
  useEffect(() => dropRevealDraft(), []);
  const [totp, setTotp] = useState('');
  const [askFactor, setAskFactor] = useState(needsFactor);
  const [offered, setOffered] = useState<readonly StepUpMethod[]>(
    methods.length ? methods : ['totp'],
  );
  const [focusKey, setFocusKey] = useState(0);
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  // Set at once (state is not): six digits typed and Enter pressed together send one reveal.
  const sending = useRef(false);
  const reasonRef = useRef<HTMLTextAreaElement>(null);
  const withCode = askFactor && offered.includes('totp');

  const reveal = async (body: RevealBody) => {
    if (sending.current) return;
    sending.current = true;
    setBusy(true);
    setError(undefined);
    try {
      onRevealed(
        await revealCard(cardId, body),
        body.totp !== undefined || body.passkey !== undefined,
      );
    } catch (caught) {
      // Only a failure opens the form again: once through, an Enter after the sixth digit sends nothing.
      sending.current = false;
      onFailure(caught);
    } finally {
      setBusy(false);
    }
  };

  const onFailure = (caught: unknown) => {
    if (isPasskeyError(caught)) {
      setError(
        withCode ? `${caught.message} You can also enter the 6-digit code.` : caught.message,
      );
    } else if (!isApiError(caught)) {
      setError(caught instanceof Error ? caught.message : 'The card could not be revealed.');
    } else if (caught.problem?.code === 'step_up_required') {
      const { methods } = caught.problem.secondFactor;
      const next = methods.length ? methods : offered;
      // The second step, not an error: the instruction is said calmly, focus goes to the code.
      setOffered(next);
      setAskFactor(true);
      setFocusKey((k) => k + 1);
    } else if (caught.code === 'invalid_totp') {
      setTotp('');
      setFocusKey((k) => k + 1);
      setError('That code is not right. Enter the current one.');
    } else if (caught.code === 'invalid_passkey') {
      setError('That passkey was not accepted. Try again, or use another way to confirm.');
    } else if (caught.code === 'no_passkeys') {
      const next = offered.filter((m) => m !== 'passkey');
      if (next.length) setOffered(next);
      setError('You have no passkey yet: add one on the Security page, or use another way.');
    } else if (caught.status === 429) {
      setError(`Too many requests — try again in ${caught.retryAfterSeconds ?? 60} s.`);
    } else {
      setError(caught.message);
    }
  };

  /**
   * The reason alone, checked before anything is sent; undefined (and a message) when short or
   * when it holds the card's security code (the reason is kept in the audit trail).
   */
  const checkedReason = (): string | undefined => {
    const parsed = revealBodySchema.safeParse({ reason });
    if (parsed.success) return parsed.data.reason;
    const holdsCode = parsed.error.issues.some((issue) => /security code/.test(issue.message));
    setError(
      holdsCode
        ? 'Take the security code out of the reason: the reason is kept in the audit trail.'
        : 'Give a reason of at least 3 characters.',
    );
    reasonRef.current?.focus();
    return undefined;
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const checked = checkedReason();
    if (checked === undefined) return;
    if (withCode && totp === '') {
      // Nothing wrong yet: the code field is where to go next.
      setError(undefined);
      setFocusKey((k) => k + 1);
      return;
    }
    if (withCode && !/^\d{6}$/.test(totp)) {
      setError(
        offered.includes('passkey')
          ? 'Enter the 6-digit code from your authenticator app, or use a passkey.'
          : 'Enter the 6-digit code from your authenticator app.',
      );
      return;
    }
    void reveal({ reason: checked, ...(withCode ? { totp } : {}) });
  };

  /** Six digits typed: revealed without a press when the reason is there too. */
  const completeCode = (code: string) => {
    if (busy) return;
    const checked = checkedReason();
    if (checked === undefined) return;
    void reveal({ reason: checked, totp: code });
  };

  /** A fresh challenge, signed with a passkey, sent with the reveal itself. */
  const revealWithPasskey = async () => {
    const checked = checkedReason();
    if (checked === undefined || sending.current) return;
    setBusy(true);
    setError(undefined);
    try {
      const passkey = await signWithPasskey(await fetchStepUpOptions());
      await reveal({ reason: checked, passkey });
    } catch (caught) {
      // Only a failure opens the form again: once through, an Enter after the sixth digit sends nothing.
      sending.current = false;
      onFailure(caught);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Dialog title="Reveal card details" onClose={onClose}>
      <form className="stack" onSubmit={submit} noValidate>
        <p className="muted">
          The full number and security code are shown for 30 seconds. Every reveal is recorded with
          your reason.
        </p>
        <Field label="Reason" hint="Write it, or pick a common one below.">
          {(control) => (
            <textarea
              {...control}
              ref={reasonRef}
              name="reason"
              required
              minLength={3}
              rows={3}
              value={reason}
              onChange={(e) => setReason(e.target.value)}
            />
          )}
        </Field>
        <fieldset className="reason-presets">
          <legend>Common reasons</legend>
          {PRESET_REASONS.map((preset) => (
            <button
              key={preset}
              type="button"
              className="small"
              aria-pressed={reason === preset}
              onClick={() => {
                setReason(preset);
                setError(undefined);
              }}
            >
              {preset}
            </button>
          ))}
        </fieldset>
        {askFactor ? (
          <SecondFactorChoices
            methods={offered}
            totp={totp}
            onTotpChange={setTotp}
            onTotpComplete={completeCode}
            instruction
            onPasskey={() => void revealWithPasskey()}
            busy={busy}
            returnTo={returnTo}
            onLeaveForProvider={() => keepRevealDraft(cardId, reason)}
            afterProvider="your reason is kept for Reveal"
            focusKey={focusKey}
          />
        ) : null}
        <FormFooter error={error} onCancel={onClose}>
          {/* With a factor to give, Reveal sends the code; a passkey or the provider is its own button. */}
          {!askFactor || withCode ? (
            <button
              type="submit"
              className={askFactor && offered.includes('passkey') ? undefined : 'primary'}
              disabled={busy}
            >
              {busy ? 'Revealing…' : 'Reveal'}
            </button>
          ) : null}
        </FormFooter>
      </form>
    </Dialog>
  );
}
