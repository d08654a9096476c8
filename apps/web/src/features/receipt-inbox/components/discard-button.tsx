import { useState } from 'react';
import { Dialog } from '../../../components/dialog';
import { useDiscardItem } from '../api/discard-item';
import type { InboxItem } from '../api/get-inbox';

interface Props {
  item: InboxItem;
  onDiscarded: (fileName: string) => void;
  onError: (message: string) => void;
}

/** "Discard", asked again in a dialog: the file leaves the inbox for good. */
export function DiscardButton({ item, onDiscarded, onError }: Props) {
  const [confirming, setConfirming] = useState(false);
  const discard = useDiscardItem(item.id);
  // Its promise, not `mutate`'s callbacks: the item leaves the list (and this button unmounts)
  // as the inbox is read again, before the mutation settles, and `mutate`'s callbacks are
  // skipped for a component gone; the screen's message must not be.
  const confirm = () =>
    discard.mutateAsync().then(
      () => {
        setConfirming(false);
        onDiscarded(item.fileName);
      },
      (error: unknown) => {
        setConfirming(false);
        onError(`Not discarded: ${error instanceof Error ? error.message : 'unknown'}`);
      },
    );
  return (
    <>
      <button
        type="button"
        aria-label={`Discard ${item.fileName}`}
        onClick={() => setConfirming(true)}
      >
        Discard
      </button>
      {confirming ? (
        <Dialog title="Discard this receipt?" onClose={() => setConfirming(false)}>
          <p className="receipt-name">
            {item.fileName} will be deleted from your inbox. It is not attached to any transaction.
          </p>
          <div className="actions">
            <button type="button" onClick={() => setConfirming(false)}>
              Keep it
            </button>
            <button
              type="button"
              className="primary"
              aria-disabled={discard.isPending || undefined}
              onClick={() => {
                if (!discard.isPending) confirm();
              }}
            >
              {discard.isPending ? 'Discarding…' : 'Discard receipt'}
            </button>
          </div>
        </Dialog>
      ) : null}
    </>
  );
}
