import { type Ref, useEffect, useRef, useSyncExternalStore } from 'react';
import { useObjectUrl } from '../lib/use-object-url';
import { Dialog } from './dialog';

interface PicturePreviewProps {
  /** What the picture is (a receipt's id): which one is shown larger is kept by it. */
  id: string;
  fileName: string;
  /** The picture's bytes as they are fetched (with the header the BFF requires). */
  file: { data?: Blob; error: unknown };
  /** On the placeholder shown until the bytes come (to fetch them once it is near the window). */
  placeholderRef?: Ref<HTMLSpanElement>;
  lazy?: boolean;
}

/**
 * Which picture is shown larger, kept outside the thumbnail: a list drawn again while it is open
 * (a refetch, a sync ending) draws the thumbnail anew, and the larger view stays open on it, where
 * Escape gives the focus back to the new thumbnail. It closes once no thumbnail of it is left.
 */
let shownLarger: string | undefined;
const listeners = new Set<() => void>();
const drawn = new Map<string, number>();
function showLarger(id: string | undefined) {
  shownLarger = id;
  for (const listener of listeners) listener();
}
function subscribe(listener: () => void) {
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
  };
}

/**
 * A picture as a thumbnail that opens larger, shown from a Blob URL (an `<img src="/api/…">`
 * cannot send the header the BFF requires). Closing the larger one gives the focus back to the
 * thumbnail.
 */
export function PicturePreview({ id, fileName, file, placeholderRef, lazy }: PicturePreviewProps) {
  const url = useObjectUrl(file.data);
  const open = useSyncExternalStore(
    subscribe,
    () => shownLarger === id,
    () => false,
  );
  useEffect(() => {
    drawn.set(id, (drawn.get(id) ?? 0) + 1);
    return () => {
      const left = (drawn.get(id) ?? 1) - 1;
      if (left > 0) drawn.set(id, left);
      else drawn.delete(id);
      // Drawn again in the same update, it is still shown; gone from the page, it is closed.
      setTimeout(() => {
        if (!drawn.has(id) && shownLarger === id) showLarger(undefined);
      }, 0);
    };
  }, [id]);
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
        onClick={() => showLarger(id)}
      >
        <img src={url} alt={alt} loading={lazy ? 'lazy' : undefined} />
      </button>
      {open ? (
        <Dialog
          title={fileName}
          onClose={() => showLarger(undefined)}
          className="receipt-dialog"
          returnFocus={opener}
        >
          <img className="receipt-large" src={url} alt={alt} />
        </Dialog>
      ) : null}
    </>
  );
}
