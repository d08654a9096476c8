import { type Ref, useRef, useState } from 'react';
import { useObjectUrl } from '../lib/use-object-url';
import { Dialog } from './dialog';

interface PicturePreviewProps {
  fileName: string;
  /** The picture's bytes as they are fetched (with the header the BFF requires). */
  file: { data?: Blob; error: unknown };
  /** On the placeholder shown until the bytes come (to fetch them once it is near the window). */
  placeholderRef?: Ref<HTMLSpanElement>;
  lazy?: boolean;
}

/**
 * A picture as a thumbnail that opens larger, shown from a Blob URL (an `<img src="/api/…">`
 * cannot send the header the BFF requires). Closing the larger one gives the focus back to the
 * thumbnail.
 */
export function PicturePreview({ fileName, file, placeholderRef, lazy }: PicturePreviewProps) {
  const url = useObjectUrl(file.data);
  const [open, setOpen] = useState(false);
  const opener = useRef<HTMLButtonElement>(null);
  const alt = `Receipt ${fileName}`;
  if (!url) {
    return (
      <span ref={placeholderRef} className="receipt-thumb receipt-kind" aria-hidden="true">
        {file.error ? '!' : '…'}
      </span>
    );
  }
  return (
    <>
      <button
        ref={opener}
        type="button"
        className="receipt-thumb"
        aria-label={`Show ${fileName} larger`}
        onClick={() => setOpen(true)}
      >
        <img src={url} alt={alt} loading={lazy ? 'lazy' : undefined} />
      </button>
      {open ? (
        <Dialog
          title={fileName}
          onClose={() => setOpen(false)}
          className="receipt-dialog"
          returnFocus={opener}
        >
          <img className="receipt-large" src={url} alt={alt} />
        </Dialog>
      ) : null}
    </>
  );
}
