import type { Receipt } from '@card-console/shared/api/notes';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Dialog } from '../../../components/dialog';
import { receiptFileQueryOptions } from '../api/download-receipt';

/** A Blob's object URL for as long as it is shown; revoked when it goes. */
function useObjectUrl(blob: Blob | undefined): string | undefined {
  const [url, setUrl] = useState<string>();
  useEffect(() => {
    if (!blob) return;
    const made = URL.createObjectURL(blob);
    setUrl(made);
    return () => {
      URL.revokeObjectURL(made);
      setUrl(undefined);
    };
  }, [blob]);
  return url;
}

/**
 * A picture receipt as a thumbnail that opens larger. Its bytes are fetched with the header the
 * BFF requires (an `<img src="/api/…">` cannot send it) and shown from a Blob URL.
 */
export function ReceiptPreview({ receipt: r }: { receipt: Receipt }) {
  const file = useQuery(receiptFileQueryOptions(r.transactionId, r.id));
  const url = useObjectUrl(file.data);
  const [open, setOpen] = useState(false);
  const alt = `Receipt ${r.fileName}`;
  if (!url) {
    return (
      <span className="receipt-thumb receipt-kind" aria-hidden="true">
        {file.error ? '!' : '…'}
      </span>
    );
  }
  return (
    <>
      <button
        type="button"
        className="receipt-thumb"
        aria-label={`Show ${r.fileName} larger`}
        onClick={() => setOpen(true)}
      >
        <img src={url} alt={alt} />
      </button>
      {open ? (
        <Dialog title={r.fileName} onClose={() => setOpen(false)} className="receipt-dialog">
          <img className="receipt-large" src={url} alt={alt} />
        </Dialog>
      ) : null}
    </>
  );
}
