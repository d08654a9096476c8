import { useQuery } from '@tanstack/react-query';
import { useRef, useState } from 'react';
import { ErrorState } from '../../../components/error-state';
import { Loading } from '../../../components/loading';
import { notesQueryOptions } from '../api/get-notes';
import { receiptsQueryOptions } from '../api/get-receipts';
import { RECEIPTS_PER_TRANSACTION } from '../receipt-file';
import { AttachReceipts } from './attach-receipts';
import { ReceiptItem } from './receipt-item';
import { UploadStatus } from './upload-status';
import { useReceiptUploads } from './use-receipt-uploads';

/**
 * The transaction's receipts: each with its preview (pictures), Download and Remove, and
 * "Attach a receipt" (or files dropped on the panel). Once the transaction is reviewed its
 * receipts are locked, as its notes are: they can be seen and downloaded, not changed.
 */
export function ReceiptsPanel({ transactionId }: { transactionId: string }) {
  const receipts = useQuery(receiptsQueryOptions(transactionId));
  const notes = useQuery(notesQueryOptions(transactionId));
  const uploads = useReceiptUploads(transactionId);
  const [message, setMessage] = useState('');
  const [dragging, setDragging] = useState(false);
  const heading = useRef<HTMLHeadingElement>(null);
  const reviewed = notes.data?.review.state === 'reviewed';
  const items = receipts.data?.items;
  const full = (items?.length ?? 0) >= RECEIPTS_PER_TRANSACTION;
  const locked = reviewed
    ? 'This transaction is reviewed, so its receipts are locked. Reopen it (under Notes) to change them.'
    : undefined;
  const canDrop = !locked && items !== undefined;

  const onRemoved = (fileName: string) => {
    setMessage(`Removed ${fileName}.`);
    heading.current?.focus();
  };

  return (
    <section
      className={dragging ? 'panel receipts dragging' : 'panel receipts'}
      aria-labelledby="receipts-title"
      onDragOver={(event) => {
        if (!canDrop || !event.dataTransfer.types.includes('Files')) return;
        event.preventDefault();
        setDragging(true);
      }}
      onDragLeave={(event) => {
        if (!event.currentTarget.contains(event.relatedTarget as Node | null)) setDragging(false);
      }}
      onDrop={(event) => {
        if (!canDrop) return;
        event.preventDefault();
        setDragging(false);
        setMessage('');
        uploads.add([...event.dataTransfer.files]);
      }}
    >
      <div className="receipts-header">
        <h2 id="receipts-title" ref={heading} tabIndex={-1}>
          Receipts
        </h2>
        {items ? (
          <p className="muted receipts-count">
            {items.length} of {RECEIPTS_PER_TRANSACTION}
          </p>
        ) : null}
      </div>
      {receipts.error && !items ? (
        <ErrorState error={receipts.error} onRetry={() => void receipts.refetch()} />
      ) : !items ? (
        <Loading label="Loading receipts…" />
      ) : (
        <>
          {items.length === 0 ? (
            <p className="muted receipts-empty">No receipt attached yet.</p>
          ) : (
            <ul className="receipts-list" aria-label="Receipts attached">
              {items.map((receipt) => (
                <ReceiptItem
                  key={receipt.id}
                  receipt={receipt}
                  locked={locked !== undefined}
                  onRemoved={onRemoved}
                />
              ))}
            </ul>
          )}
          <p className="receipts-message" role="status">
            {message}
          </p>
          {locked ? (
            <p className="muted receipts-locked">{locked}</p>
          ) : (
            <AttachReceipts
              full={full}
              onChoose={(files) => {
                setMessage('');
                uploads.add(files);
              }}
            />
          )}
          <UploadStatus
            uploads={uploads.uploads}
            pausedUntil={uploads.pausedUntil}
            onDismiss={uploads.dismiss}
          />
        </>
      )}
    </section>
  );
}
