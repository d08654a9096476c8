import { useId } from 'react';
import {
  formatBytes,
  RECEIPT_ACCEPT,
  RECEIPT_MAX_BYTES,
  RECEIPTS_PER_TRANSACTION,
} from '../receipt-file';

interface Props {
  /** The transaction has as many receipts as it may. */
  full: boolean;
  onChoose: (files: File[]) => void;
}

/** "Attach a receipt": the device's own file picker, several files at once. */
export function AttachReceipts({ full, onChoose }: Props) {
  const id = useId();
  const hintId = `${id}-hint`;
  return (
    <div className="field receipts-attach">
      <label htmlFor={id}>Attach a receipt</label>
      <input
        id={id}
        type="file"
        multiple
        accept={RECEIPT_ACCEPT}
        disabled={full}
        aria-describedby={hintId}
        onChange={(event) => {
          const files = [...(event.target.files ?? [])];
          // Emptied, so choosing the same file again (after a failure) is a new choice.
          event.target.value = '';
          onChoose(files);
        }}
      />
      <small id={hintId} className="muted">
        {full
          ? `A transaction can have at most ${RECEIPTS_PER_TRANSACTION} receipts. Remove one to attach another.`
          : `JPEG, PNG, WebP or HEIC pictures or PDFs, up to ${formatBytes(RECEIPT_MAX_BYTES)} each. You can also drop files on this panel.`}
      </small>
    </div>
  );
}
