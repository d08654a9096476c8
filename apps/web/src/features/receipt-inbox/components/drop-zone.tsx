import { type ReactNode, useId, useState } from 'react';
import { formatBytes, INBOX_ACCEPT, INBOX_FILE_MAX_BYTES } from '../inbox-file';

interface Props {
  onFiles: (files: File[]) => void;
  /** How the files sent are doing, under the zone. */
  children: ReactNode;
}

/**
 * Where receipts go in: dropped on the zone, as many as at once, or chosen with the device's
 * own picker ("Choose files", several at once). The picker is the real file input, named by
 * its label, which looks like a button and shows the input's focus.
 */
export function DropZone({ onFiles, children }: Props) {
  const id = useId();
  const [dragging, setDragging] = useState(false);
  return (
    <section
      className={dragging ? 'panel rinbox-drop dragging' : 'panel rinbox-drop'}
      aria-labelledby={`${id}-title`}
      onDragOver={(event) => {
        if (!event.dataTransfer.types.includes('Files')) return;
        event.preventDefault();
        event.dataTransfer.dropEffect = 'copy';
        setDragging(true);
      }}
      onDragLeave={(event) => {
        if (!event.currentTarget.contains(event.relatedTarget as Node | null)) setDragging(false);
      }}
      onDrop={(event) => {
        event.preventDefault();
        setDragging(false);
        onFiles([...event.dataTransfer.files]);
      }}
    >
      <h2 id={`${id}-title`}>Add receipts</h2>
      <p className="rinbox-drop-words">
        Drop receipts here, as many as you have, or choose them. Each one is read and finds its own
        transaction.
      </p>
      <div className="rinbox-choose-row">
        <input
          id={`${id}-files`}
          className="visually-hidden rinbox-files"
          type="file"
          multiple
          accept={INBOX_ACCEPT}
          aria-describedby={`${id}-hint`}
          onChange={(event) => {
            const files = [...(event.target.files ?? [])];
            // Emptied, so choosing the same file again (after a failure) is a new choice.
            event.target.value = '';
            onFiles(files);
          }}
        />
        <label htmlFor={`${id}-files`} className="rinbox-choose">
          Choose files
        </label>
        <small id={`${id}-hint`} className="muted">
          JPEG, PNG, WebP or HEIC pictures or PDFs, up to {formatBytes(INBOX_FILE_MAX_BYTES)} each.
        </small>
      </div>
      {children}
    </section>
  );
}
