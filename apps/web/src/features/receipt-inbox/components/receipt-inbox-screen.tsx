import { useRef, useState } from 'react';
import { ListNotLoaded } from '../../../components/list-not-loaded';
import { useDocumentTitle } from '../../../components/use-document-title';
import type { InboxList } from '../api/get-inbox';
import type { InboxGroupKey } from '../inbox-search';
import { inboxGroups } from '../inbox-words';
import { DropZone } from './drop-zone';
import { ForwardingAddress } from './forwarding-address';
import { InboxFilter } from './inbox-filter';
import { InboxItem } from './inbox-item';
import { UploadStatus } from './upload-status';
import { useInboxUploads } from './use-inbox-uploads';
import '../receipt-inbox.css';

interface Props {
  /** Undefined while the list failed (`error`) or is on its way. */
  list: InboxList | undefined;
  error: unknown;
  /** Asked for again (a Retry): the old failure no longer says anything. */
  busy: boolean;
  onRetry: () => void;
  show: InboxGroupKey | undefined;
  onShow: (show: InboxGroupKey | undefined) => void;
}

/**
 * The receipt inbox: receipts dropped in a pile or forwarded by email, each read and matched to
 * its own transaction. What needs the person comes first (a suggestion to confirm, a
 * transaction to pick), then what is being read, then what went where in the last 30 days.
 */
export function ReceiptInboxScreen({ list, error, busy, onRetry, show, onShow }: Props) {
  useDocumentTitle('Receipt inbox');
  const uploads = useInboxUploads();
  const [message, setMessage] = useState('');
  const messageRef = useRef<HTMLParagraphElement>(null);
  const groups = inboxGroups
    .filter((g) => show === undefined || g.key === show)
    .map((g) => ({
      ...g,
      items: (list?.items ?? []).filter((i) =>
        (g.statuses as readonly string[]).includes(i.status),
      ),
    }));

  // The item's buttons are gone with it: the focus goes to what happened.
  const onDone = (text: string) => {
    setMessage(text);
    requestAnimationFrame(() => messageRef.current?.focus());
  };

  return (
    <section aria-labelledby="receipt-inbox-title" className="receipt-inbox">
      <div className="screen-header">
        <h1 id="receipt-inbox-title">Receipt inbox</h1>
      </div>
      <p className="muted rinbox-intro">
        Drop receipts here in a pile, or forward them by email: each one is read and finds its own
        transaction. You confirm every match that is not certain.
      </p>
      <DropZone
        onFiles={(files) => {
          setMessage('');
          uploads.add(files);
        }}
      >
        <UploadStatus
          uploads={uploads.uploads}
          pausedUntil={uploads.pausedUntil}
          onRetry={uploads.retry}
          onDismiss={uploads.dismiss}
        />
      </DropZone>
      <div role="status" aria-live="polite">
        {message ? (
          <p ref={messageRef} tabIndex={-1} className="notice rinbox-message">
            <span>{message}</span>
            <button type="button" className="link-button" onClick={() => setMessage('')}>
              Dismiss
            </button>
          </p>
        ) : null}
      </div>
      {!list ? (
        <ListNotLoaded error={error} busy={busy} onRetry={onRetry} />
      ) : list.items.length === 0 ? (
        <p className="empty">
          Your inbox is empty. Drop receipts above, or forward them to your address below.
        </p>
      ) : (
        <>
          <InboxFilter list={list} show={show} onShow={onShow} />
          {groups.every((g) => g.items.length === 0) ? (
            <p className="empty">{emptyWords(show)}</p>
          ) : null}
          {groups.map((g) =>
            g.items.length === 0 ? null : (
              <section key={g.key} className="rinbox-group" aria-labelledby={`rinbox-${g.key}`}>
                <h2 id={`rinbox-${g.key}`}>
                  {g.label}
                  {g.key === 'attached' ? (
                    <span className="muted rinbox-group-note"> (the last 30 days)</span>
                  ) : null}
                </h2>
                <ul className="rinbox-list">
                  {g.items.map((item) => (
                    <InboxItem key={item.id} item={item} onDone={onDone} />
                  ))}
                </ul>
              </section>
            ),
          )}
        </>
      )}
      <ForwardingAddress />
    </section>
  );
}

function emptyWords(show: InboxGroupKey | undefined): string {
  if (show === 'needs-you') return 'Nothing needs you: every receipt found its transaction.';
  if (show === 'reading') return 'Nothing is being read.';
  if (show === 'attached') return 'No receipt was attached in the last 30 days.';
  return 'Nothing to show.';
}
