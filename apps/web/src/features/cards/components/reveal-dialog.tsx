import { type RevealResponse, revealBodySchema } from '@card-console/shared/api/cards';
import { type FormEvent, useState } from 'react';
import { Dialog } from '../../../components/dialog';
import { Field } from '../../../components/field';
import { TotpField } from '../../../components/totp-field';
import { isApiError } from '../../../lib/api-error';
import { revealCard } from '../api/reveal-card';

interface RevealDialogProps {
  cardId: string;
  /** The session's step-up has lapsed: ask for a code up front. */
  needsCode: boolean;
  onRevealed: (secrets: RevealResponse, usedCode: boolean) => void;
  onClose: () => void;
}

/** Asks why (for the audit trail) and, when the step-up lapsed, for a fresh second factor. */
export function RevealDialog({ cardId, needsCode, onRevealed, onClose }: RevealDialogProps) {
  const [reason, setReason] = useState('');
  const [totp, setTotp] = useState('');
  const [askCode, setAskCode] = useState(needsCode);
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const parsed = revealBodySchema.safeParse({ reason, ...(askCode ? { totp } : {}) });
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      setError(
        issue?.path[0] === 'totp'
          ? 'Enter the 6-digit code from your authenticator app.'
          : 'Give a reason of at least 3 characters.',
      );
      return;
    }
    setBusy(true);
    setError(undefined);
    try {
      const secrets = await revealCard(cardId, parsed.data);
      onRevealed(secrets, askCode);
    } catch (caught) {
      if (isApiError(caught) && caught.code === 'step_up_required') {
        setAskCode(true);
        setError('Confirm it is you: enter the 6-digit code from your authenticator app.');
      } else if (isApiError(caught) && caught.code === 'invalid_totp') {
        setAskCode(true);
        setTotp('');
        setError('That code is not right. Enter the current one.');
      } else if (isApiError(caught) && caught.status === 429) {
        setError(`Too many requests — try again in ${caught.retryAfterSeconds ?? 60} s.`);
      } else {
        setError(caught instanceof Error ? caught.message : 'The card could not be revealed.');
      }
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
        <Field label="Reason">
          {(control) => (
            <textarea
              {...control}
              name="reason"
              required
              minLength={3}
              maxLength={500}
              rows={3}
              value={reason}
              onChange={(e) => setReason(e.target.value)}
            />
          )}
        </Field>
        {askCode ? <TotpField value={totp} onChange={setTotp} /> : null}
        {error ? (
          <p className="form-error" role="alert">
            {error}
          </p>
        ) : null}
        <div className="actions">
          <button type="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="primary" disabled={busy}>
            {busy ? 'Revealing…' : 'Reveal'}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
