import { useQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { Dialog } from '../../../components/dialog';
import { inboxAddressQueryOptions, useRotateAddress } from '../api/inbox-address';

/**
 * "Forward receipts by email": the person's private address, to copy, and a new one when the
 * old has got out (mail to the old one is refused from then on). When the operator has not set
 * up receiving mail, one sentence says so.
 */
export function ForwardingAddress() {
  const id = useId();
  const address = useQuery(inboxAddressQueryOptions());
  const rotate = useRotateAddress();
  const [copied, setCopied] = useState<boolean>();
  const [confirming, setConfirming] = useState(false);
  const [message, setMessage] = useState('');

  const copy = async (value: string) => {
    try {
      await navigator.clipboard.writeText(value);
      setCopied(true);
    } catch {
      setCopied(false);
    }
  };

  const renew = () =>
    rotate.mutate(undefined, {
      onSuccess: () => {
        setConfirming(false);
        setCopied(undefined);
        setMessage('Your new address is ready. Mail to the old one is refused from now on.');
      },
      onError: (error) => {
        setConfirming(false);
        setMessage(`No new address: ${error.message}`);
      },
    });

  const data = address.data;
  return (
    <section className="panel rinbox-forward" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Forward receipts by email</h2>
      {!data ? (
        address.error ? (
          <div className="rinbox-forward-error">
            <p className="form-error" role="alert">
              Your address could not be loaded: {address.error.message}
            </p>
            <button type="button" onClick={() => void address.refetch()}>
              Retry
            </button>
          </div>
        ) : (
          <p className="muted" role="status">
            Loading your address…
          </p>
        )
      ) : !data.enabled ? (
        <p className="muted">
          Receipts cannot be sent by email here: the operator has not set up receiving mail for Card
          Console.
        </p>
      ) : (
        <>
          <p>
            Forward receipts, or have them sent, to your own address: they arrive in this inbox and
            find their transactions. Anyone who has it can send files here, so keep it to yourself.
          </p>
          {data.address ? (
            <p className="rinbox-address-row">
              <code className="rinbox-address" id={`${id}-address`}>
                {data.address}
              </code>
              <span className="rinbox-address-actions">
                <button
                  type="button"
                  aria-describedby={`${id}-address`}
                  onClick={() => void copy(data.address as string)}
                >
                  Copy address
                </button>
                <button type="button" onClick={() => setConfirming(true)}>
                  New address
                </button>
              </span>
            </p>
          ) : (
            <button type="button" onClick={() => renew()}>
              Get an address
            </button>
          )}
          <p className="muted rinbox-forward-status" role="status">
            {copied === true
              ? 'Copied.'
              : copied === false
                ? 'Copying was not allowed here: select the address and copy it yourself.'
                : message}
          </p>
        </>
      )}
      {confirming && data?.address ? (
        <Dialog title="Get a new address?" onClose={() => setConfirming(false)}>
          <p>
            <code className="rinbox-address">{data.address}</code> stops working at once: mail sent
            to it is refused. Anything that forwards to it needs the new address.
          </p>
          <div className="actions">
            <button type="button" onClick={() => setConfirming(false)}>
              Keep this address
            </button>
            <button
              type="button"
              className="primary"
              aria-disabled={rotate.isPending || undefined}
              onClick={() => {
                if (!rotate.isPending) renew();
              }}
            >
              {rotate.isPending ? 'Getting one…' : 'Get a new address'}
            </button>
          </div>
        </Dialog>
      ) : null}
    </section>
  );
}
