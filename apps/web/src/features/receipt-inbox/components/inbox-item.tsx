import { formatCents } from '@card-console/shared/money';
import { Fragment, useState } from 'react';
import { formatDate, formatDateTime } from '../../../lib/format';
import { type AttachTarget, useAttachItem } from '../api/attach-item';
import type { InboxItem as Item } from '../api/get-inbox';
import { downloadInboxFile } from '../api/get-inbox-file';
import { formatBytes, isPreviewable, typeName } from '../inbox-file';
import { problemWords, viaWords } from '../inbox-words';
import { AttachedTo } from './attached-to';
import { DiscardButton } from './discard-button';
import { InboxThumb } from './inbox-thumb';
import { PickTransaction } from './pick-transaction';
import { Suggestions } from './suggestions';
import { transactionLabel } from './transaction-summary';

interface Props {
  item: Item;
  /** Said on the screen once an item is attached or discarded (its buttons are gone then). */
  onDone: (message: string) => void;
}

/**
 * One receipt of the inbox: its picture (or kind), name, when and how it came, what was read
 * off it (or why nothing was), and what it needs: wait while it is read, a suggestion to
 * confirm, a transaction to pick, or where it went.
 */
export function InboxItem({ item, onDone }: Props) {
  const [error, setError] = useState<string>();
  const [finding, setFinding] = useState(false);
  const [downloading, setDownloading] = useState(false);
  const attach = useAttachItem(item.id);

  const attachTo = (target: AttachTarget, label: string) => {
    setError(undefined);
    // Its promise, not `mutate`'s callbacks: once attached the item moves to "Attached" (another
    // list, so this row unmounts) as the inbox is read again, before the mutation settles, and
    // `mutate`'s callbacks are skipped for a component gone; the screen's message must not be.
    attach.mutateAsync(target).then(
      () => onDone(`Attached ${item.fileName} to ${label}.`),
      (caught: unknown) =>
        setError(`Not attached: ${caught instanceof Error ? caught.message : 'unknown'}`),
    );
  };

  const download = async () => {
    if (downloading) return;
    setDownloading(true);
    setError(undefined);
    try {
      await downloadInboxFile(item.id, item.fileName);
    } catch (caught) {
      setError(`Download failed: ${caught instanceof Error ? caught.message : 'unknown'}`);
    } finally {
      setDownloading(false);
    }
  };

  const picker = (
    <PickTransaction
      item={item}
      busy={attach.isPending}
      onPick={(t) =>
        attachTo(
          { subAccountId: t.subAccountId, transactionId: t.id },
          transactionLabel({ description: t.description, at: t.date, amountCents: t.amountCents }),
        )
      }
    />
  );

  return (
    <li className={`rinbox-item rinbox-item-${item.status}`}>
      <InboxThumb item={item} />
      <div className="rinbox-about">
        <h3 className="receipt-name">{item.fileName}</h3>
        <p className="muted receipt-meta">
          Received {formatDateTime(item.receivedAt)}, {viaWords[item.via]} ·{' '}
          {typeName(item.mediaType)} · {formatBytes(item.byteSize)}
        </p>
        <ReadLine item={item} />
      </div>
      <div className="receipt-actions rinbox-actions">
        {isPreviewable(item.mediaType) ? null : (
          <button
            type="button"
            aria-label={`${downloading ? 'Downloading' : 'Download'} ${item.fileName}`}
            aria-disabled={downloading || undefined}
            onClick={download}
          >
            {downloading ? 'Downloading…' : 'Download'}
          </button>
        )}
        {item.status === 'attached' ? null : (
          <DiscardButton
            item={item}
            onDiscarded={(n) => onDone(`Discarded ${n}.`)}
            onError={setError}
          />
        )}
      </div>
      <div className="rinbox-needs">
        {error ? (
          <p className="form-error" role="alert">
            {error}
          </p>
        ) : null}
        {item.status === 'reading' ? (
          <p className="rinbox-reading">
            <span className="rinbox-spinner" aria-hidden="true" />
            Reading…
          </p>
        ) : item.status === 'suggested' ? (
          <>
            <Suggestions
              item={item}
              busy={attach.isPending}
              onPick={(s) => attachTo(s, transactionLabel(s))}
            />
            <button
              type="button"
              className="link-button"
              aria-expanded={finding}
              onClick={() => setFinding((open) => !open)}
            >
              None of these? Find another transaction
            </button>
            {finding ? picker : null}
          </>
        ) : item.status === 'waiting' ? (
          <>
            <p className="rinbox-waiting">No transaction fits yet. Find it here:</p>
            {picker}
          </>
        ) : item.attached ? (
          <AttachedTo item={item} attached={item.attached} />
        ) : null}
        <p className="muted rinbox-attaching" role="status">
          {attach.isPending ? 'Attaching…' : ''}
        </p>
      </div>
    </li>
  );
}

/** What was read off the receipt, or why nothing was. */
function ReadLine({ item }: { item: Item }) {
  if (item.status === 'reading') return null;
  const read = item.read;
  // A date and an amount each kept on one line (a phone wrapped "Nov" from "27, 2026"), each
  // "·" with the part before it, so no line starts with one.
  const parts = [
    read?.merchant === undefined
      ? undefined
      : { key: 'merchant', text: read.merchant, whole: false },
    read?.date === undefined
      ? undefined
      : { key: 'date', text: formatDate(read.date), whole: true },
    read?.totalCents === undefined
      ? undefined
      : { key: 'total', text: formatCents(read.totalCents), whole: true },
  ].filter((p) => p !== undefined);
  if (read?.problem) {
    return <p className="rinbox-read rinbox-problem">{problemWords[read.problem]}</p>;
  }
  return (
    <p className="rinbox-read">
      {parts.length > 0 ? (
        <>
          <span className="muted">Read: </span>
          {parts.map((p, n) => (
            <Fragment key={p.key}>
              {n > 0 ? ' ' : null}
              <span className={p.whole ? 'rinbox-read-whole' : undefined}>
                {p.text}
                {n < parts.length - 1 ? '\u00a0·' : null}
              </span>
            </Fragment>
          ))}
        </>
      ) : (
        <span className="muted">Nothing could be read from it.</span>
      )}
    </p>
  );
}
