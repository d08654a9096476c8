import type { RevealResponse } from '@card-console/shared/api/cards';
import type { StepUpMethod } from '@card-console/shared/api/session';
import { useCallback, useEffect, useRef, useState } from 'react';
import { useCountdown } from '../../../components/use-countdown';
import { formatExpiry, groupInFours, maskedPan } from '../../../lib/format';
import { peekRevealDraft } from '../reveal-draft';
import { RevealDialog } from './reveal-dialog';

export const REVEAL_SECONDS = 30;

interface CardSecretsProps {
  cardId: string;
  last4: string;
  /** The card's expiry (not secret): shown beside the masked values, copied with the others. */
  expiryMonth?: string | undefined;
  expiryYear?: string | undefined;
  canReveal: boolean;
  stepUpUntil: number | undefined;
  stepUpMethods: readonly StepUpMethod[];
  onSteppedUp: () => void;
}

/**
 * The card number and CVV, masked. Revealed values live only in this component's state:
 * gone after the countdown, when the tab is hidden, and when the component unmounts.
 * A copied value is wiped from the clipboard when the countdown ends, on "Hide now" and when
 * the component unmounts; hiding the tab does not wipe it (the person may be pasting it
 * elsewhere), so it is wiped when the window next has focus. A browser refuses clipboard
 * writes from an unfocused page: a wipe it refuses is tried again at the next focus while this
 * card's page is open. Focus moves to the values once revealed, and back to "Reveal card
 * details" when they hide again while focus was on their controls (now gone).
 */
export function CardSecrets({
  cardId,
  last4,
  expiryMonth,
  expiryYear,
  canReveal,
  stepUpUntil,
  stepUpMethods,
  onSteppedUp,
}: CardSecretsProps) {
  const [secrets, setSecrets] = useState<
    Pick<RevealResponse, 'pan' | 'cvv' | 'expiryMonth' | 'expiryYear'> | undefined
  >();
  // Back from confirming at the identity provider with a reason kept: the dialog opens again.
  const [asking, setAsking] = useState(() => canReveal && peekRevealDraft(cardId) !== undefined);
  const [copied, setCopied] = useState<string | undefined>();
  const copiedSomething = useRef(false);
  const wipeClipboard = useCallback(() => {
    if (!copiedSomething.current) return;
    navigator.clipboard?.writeText('').then(
      () => {
        copiedSomething.current = false;
      },
      () => undefined,
    );
  }, []);
  const hide = useCallback(() => {
    setSecrets(undefined);
    setCopied(undefined);
  }, []);
  const hideAndWipe = useCallback(() => {
    hide();
    wipeClipboard();
  }, [hide, wipeClipboard]);
  const left = useCountdown(secrets ? REVEAL_SECONDS : undefined, hideAndWipe, secrets);
  const valuesRef = useRef<HTMLElement>(null);
  const revealButton = useRef<HTMLButtonElement>(null);
  const shown = useRef(false);

  useEffect(() => {
    if (secrets) {
      if (!shown.current) valuesRef.current?.focus();
      shown.current = true;
      return;
    }
    if (!shown.current) return;
    shown.current = false;
    if (document.activeElement === document.body) revealButton.current?.focus();
  }, [secrets]);

  // While the details are shown, the countdown wipes; once hidden, the next focus does.
  useEffect(() => {
    if (secrets) return;
    window.addEventListener('focus', wipeClipboard);
    return () => window.removeEventListener('focus', wipeClipboard);
  }, [secrets, wipeClipboard]);
  useEffect(() => wipeClipboard, [wipeClipboard]);

  useEffect(() => {
    if (!secrets) return;
    const onVisibility = () => {
      if (document.visibilityState === 'hidden') hide();
    };
    document.addEventListener('visibilitychange', onVisibility);
    window.addEventListener('pagehide', hide);
    return () => {
      document.removeEventListener('visibilitychange', onVisibility);
      window.removeEventListener('pagehide', hide);
    };
  }, [secrets, hide]);

  const copy = (what: string, value: string) => {
    void navigator.clipboard
      ?.writeText(value)
      .then(() => {
        copiedSomething.current = true;
        setCopied(what);
      })
      .catch(() => setCopied(undefined));
  };

  const expiry = formatExpiry(
    secrets?.expiryMonth ?? expiryMonth,
    secrets?.expiryYear ?? expiryYear,
  );
  // One text a vendor's form or a phone call needs: number, expiry and code together.
  const all = secrets
    ? [`Card number: ${secrets.pan}`, `Expiry: ${expiry}`, `CVV: ${secrets.cvv}`].join('\n')
    : '';

  return (
    <div className="secrets">
      <section
        ref={valuesRef}
        aria-label="Card number, expiry and security code"
        tabIndex={-1}
        className={secrets ? 'secret-values reveal-card revealed' : 'secret-values reveal-card'}
        data-testid="reveal-card"
      >
        <dl>
          <SecretRow
            className="reveal-card-number"
            label="Card number"
            testId="pan"
            shown={secrets ? groupInFours(secrets.pan) : maskedPan(last4)}
            onCopy={secrets ? () => copy('Card number', secrets.pan) : undefined}
            copyLabel="Copy card number"
          />
          <SecretRow
            label="Expiry"
            testId="expiry"
            shown={expiry}
            onCopy={secrets && expiry !== '—' ? () => copy('Expiry', expiry) : undefined}
            copyLabel="Copy expiry"
          />
          <SecretRow
            label="Security code"
            testId="cvv"
            shown={secrets ? secrets.cvv : '•••'}
            onCopy={secrets ? () => copy('CVV', secrets.cvv) : undefined}
            copyLabel="Copy CVV"
          />
        </dl>
        {secrets ? (
          <button
            type="button"
            className="primary reveal-copy-all"
            onClick={() => copy('Number, expiry and CVV', all)}
          >
            Copy all
          </button>
        ) : null}
      </section>
      {/* Said once, politely, when something is copied; the countdown itself is not read out each second. */}
      <p className="copied-note" role="status">
        {secrets && copied ? `${copied} copied` : ''}
      </p>
      {secrets ? (
        <p className="countdown">
          Hidden again in {left ?? REVEAL_SECONDS} s
          <button type="button" className="small" onClick={hideAndWipe}>
            Hide now
          </button>
        </p>
      ) : null}
      {canReveal && !secrets ? (
        <button type="button" ref={revealButton} onClick={() => setAsking(true)}>
          Reveal card details
        </button>
      ) : null}
      {asking ? (
        <RevealDialog
          cardId={cardId}
          needsFactor={stepUpUntil === undefined || stepUpUntil <= Date.now()}
          methods={stepUpMethods}
          onClose={() => setAsking(false)}
          onRevealed={(revealed, steppedUp) => {
            setAsking(false);
            setSecrets({
              pan: revealed.pan,
              cvv: revealed.cvv,
              expiryMonth: revealed.expiryMonth,
              expiryYear: revealed.expiryYear,
            });
            if (steppedUp) onSteppedUp();
          }}
        />
      ) : null}
    </div>
  );
}

/** One value of the card panel, with its own Copy once revealed. */
function SecretRow({
  className,
  label,
  testId,
  shown,
  onCopy,
  copyLabel,
}: {
  className?: string;
  label: string;
  testId: string;
  shown: string;
  onCopy: (() => void) | undefined;
  copyLabel: string;
}) {
  return (
    <div className={className}>
      <dt>{label}</dt>
      <dd>
        <span className="mono" data-testid={testId}>
          {shown}
        </span>
        {onCopy ? (
          <button type="button" className="small" onClick={onCopy} aria-label={copyLabel}>
            Copy
          </button>
        ) : null}
      </dd>
    </div>
  );
}
