import type { Receipt } from '@card-console/shared/api/notes';
import { useState } from 'react';
import { Dialog } from '../../../components/dialog';
import { formatDateTime } from '../../../lib/format';
import { downloadReceipt } from '../api/download-receipt';
import { useRemoveReceipt } from '../api/remove-receipt';
import { formatBytes, isPreviewable, receiptTypeName } from '../receipt-file';
import { ReceiptPreview } from './receipt-preview';

interface Props {
  receipt: Receipt;
  /** Reviewed: seen and downloaded, not removed. */
  locked: boolean;
  onRemoved: (fileName: string) => void;
}

/** One receipt: its picture (or its type), name, size, who attached it and when; its actions. */
export function ReceiptItem({ receipt: r, locked, onRemoved }: Props) {
  const [error, setError] = useState<string>();
  const [downloading, setDownloading] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const remove = useRemoveReceipt(r.transactionId);
  const type = receiptTypeName(r.mediaType);

  const download = async () => {
    if (downloading) return;
    setDownloading(true);
    setError(undefined);
    try {
      await downloadReceipt(r.transactionId, r.id, r.fileName);
    } catch (caught) {
      setError(`Download failed: ${caught instanceof Error ? caught.message : 'unknown'}`);
    } finally {
      setDownloading(false);
    }
  };

  const confirmRemove = () => {
    setError(undefined);
    remove.mutate(r.id, {
      onSuccess: () => {
        setConfirming(false);
        onRemoved(r.fileName);
      },
      onError: (caught) => {
        setConfirming(false);
        setError(`Not removed: ${caught.message}`);
      },
    });
  };

  return (
    <li className="receipt">
      {isPreviewable(r.mediaType) ? (
        <ReceiptPreview receipt={r} />
      ) : (
        <span className="receipt-thumb receipt-kind" aria-hidden="true">
          {type}
        </span>
      )}
      <div className="receipt-about">
        <span className="receipt-name" title={r.fileName}>
          {r.fileName}
        </span>
        <span className="muted receipt-meta">
          {type} · {formatBytes(r.byteSize)} · added by {r.uploadedBy} on{' '}
          {formatDateTime(r.uploadedAt)}
        </span>
        {error ? (
          <p className="form-error" role="alert">
            {error}
          </p>
        ) : null}
      </div>
      <div className="receipt-actions">
        <button
          type="button"
          aria-label={`${downloading ? 'Downloading' : 'Download'} ${r.fileName}`}
          aria-disabled={downloading || undefined}
          onClick={download}
        >
          {downloading ? 'Downloading…' : 'Download'}
        </button>
        {locked ? null : (
          <button
            type="button"
            aria-label={`Remove ${r.fileName}`}
            onClick={() => setConfirming(true)}
          >
            Remove
          </button>
        )}
      </div>
      {confirming ? (
        <Dialog title="Remove this receipt?" onClose={() => setConfirming(false)}>
          <p className="receipt-name">
            {r.fileName} will no longer be attached to this transaction.
          </p>
          <div className="actions">
            <button type="button" onClick={() => setConfirming(false)}>
              Keep it
            </button>
            <button
              type="button"
              className="primary"
              aria-disabled={remove.isPending || undefined}
              onClick={() => {
                if (!remove.isPending) confirmRemove();
              }}
            >
              {remove.isPending ? 'Removing…' : 'Remove receipt'}
            </button>
          </div>
        </Dialog>
      ) : null}
    </li>
  );
}
