import { useQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { useEffect, useId, useRef, useState } from 'react';
import { sessionQueryOptions } from '../../session/api/get-session';
import { merchantQueryOptions } from '../api/get-merchant';
import { useNameMerchant } from '../api/name-merchant';

/**
 * A transaction's merchant: the text the card network sent, as it is, and once the index says
 * which merchant it names, a link to every transaction at that merchant, however its texts are
 * written ("SQ *PRAIRIE FUEL…", "PRAIRIE FUEL #12 DENVER CO"). Admins can name the merchant
 * (another merchant's name makes the two one) and take a name off.
 */
export function MerchantRef({ descriptor }: { descriptor: string }) {
  const merchant = useQuery(merchantQueryOptions(descriptor)).data;
  const admin = useQuery(sessionQueryOptions()).data?.role === 'admin';
  // Here, not in the form or the button: they are gone once the merchant is read again, and a
  // mutation's own callbacks would not run for them.
  const { name, unname } = useNameMerchant();
  const [said, setSaid] = useState<{ text: string; failed?: boolean }>();
  const [naming, setNaming] = useState(false);
  const saidRef = useRef<HTMLParagraphElement>(null);
  useEffect(() => {
    if (said) saidRef.current?.focus();
  }, [said]);
  const ways = merchant ? merchant.descriptors.length + merchant.more : 0;
  return (
    <>
      {descriptor}
      {merchant?.name ? (
        <span className="merchant-group">
          <Link to="/transactions" search={{ merchantName: [merchant.name] }}>
            All at {merchant.name}
          </Link>
          {ways > 1 ? (
            <small className="muted"> ({ways.toLocaleString('en-US')} ways it is written)</small>
          ) : null}
          {merchant.named ? (
            <small className="muted">
              {' '}
              · named by {merchant.named.by}
              {merchant.named.groups > 1 ? `, ${merchant.named.groups} merchants made one` : ''}
            </small>
          ) : null}
        </span>
      ) : null}
      {admin && merchant?.name ? (
        naming ? (
          <MerchantNameForm
            name={name}
            current={merchant.name}
            onDone={(text) => {
              setNaming(false);
              if (text) setSaid({ text });
            }}
          />
        ) : (
          <span className="merchant-name-actions">
            <button
              type="button"
              className="link-button"
              onClick={() => {
                setSaid(undefined);
                setNaming(true);
              }}
            >
              Name this merchant
            </button>
            {merchant.named ? (
              <UnnameButton unname={unname} merchant={merchant.name} onSaid={setSaid} />
            ) : null}
          </span>
        )
      ) : null}
      <span role="status" aria-live="polite">
        {said ? (
          <span
            ref={saidRef}
            tabIndex={-1}
            className={`merchant-name-said ${said.failed ? 'form-error' : 'notice'}`}
          >
            {said.text}
          </span>
        ) : null}
      </span>
    </>
  );
}

/** "Name this merchant": the name it goes by everywhere; another merchant's makes them one. */
function MerchantNameForm({
  name,
  current,
  onDone,
}: {
  name: ReturnType<typeof useNameMerchant>['name'];
  current: string;
  onDone: (said?: string) => void;
}) {
  const [typed, setTyped] = useState(current);
  const [error, setError] = useState<string>();
  const input = useRef<HTMLInputElement>(null);
  const hint = useId();
  const errorId = useId();
  useEffect(() => {
    input.current?.select();
  }, []);
  return (
    <form
      className="merchant-name-form"
      aria-label={`Name the merchant ${current}`}
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        if (name.isPending) return;
        const to = typed.trim();
        if (!/[a-z0-9]/i.test(to)) {
          setError('Type a name with a letter (a to z) or a digit.');
          input.current?.focus();
          return;
        }
        if (to === current) {
          onDone();
          return;
        }
        name.mutate(
          { merchant: current, name: to },
          {
            onSuccess: (done) =>
              onDone(
                done.groups > 1
                  ? `${done.groups} merchants now go by “${done.name}”, in every list, total and file.`
                  : `“${current}” now goes by “${done.name}”, in every list, total and file.`,
              ),
            onError: (failure) => {
              setError(failure.message);
              input.current?.focus();
            },
          },
        );
      }}
    >
      <label>
        Merchant name
        <input
          ref={input}
          value={typed}
          aria-describedby={error ? `${hint} ${errorId}` : hint}
          aria-invalid={error ? true : undefined}
          onChange={(event) => {
            setTyped(event.target.value);
            setError(undefined);
          }}
        />
      </label>
      <small id={hint} className="muted">
        Every way it is written goes by this name. Another merchant’s name makes the two one.
      </small>
      {error ? (
        <span id={errorId} className="form-error">
          {error}
        </span>
      ) : null}
      <span className="merchant-name-buttons">
        <button type="submit" aria-disabled={name.isPending || undefined}>
          {name.isPending ? 'Saving…' : 'Save name'}
        </button>
        <button type="button" onClick={() => onDone()}>
          Cancel
        </button>
      </span>
    </form>
  );
}

/** Takes an admin's name off: the merchant's texts go by their own names again. */
function UnnameButton({
  unname,
  merchant,
  onSaid,
}: {
  unname: ReturnType<typeof useNameMerchant>['unname'];
  merchant: string;
  onSaid: (said: { text: string; failed?: boolean }) => void;
}) {
  return (
    <button
      type="button"
      className="link-button"
      aria-disabled={unname.isPending || undefined}
      onClick={() => {
        if (unname.isPending) return;
        unname.mutate(
          { merchant },
          {
            onSuccess: (done) =>
              onSaid({
                text:
                  done.groups > 1
                    ? `“${merchant}” is taken off: its ${done.groups} merchants go by their own names again.`
                    : `“${merchant}” is taken off: the merchant goes by its own name again.`,
              }),
            onError: (failure) => onSaid({ text: failure.message, failed: true }),
          },
        );
      }}
    >
      {unname.isPending ? 'Taking the name off…' : 'Take the name off'}
    </button>
  );
}
