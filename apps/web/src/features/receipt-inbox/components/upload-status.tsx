import { useSecondsUntil } from '../../../components/use-countdown';
import type { Upload } from '../upload-queue';

interface Props {
  uploads: readonly Upload[];
  pausedUntil: number | undefined;
  onRetry: (key: number) => void;
  onDismiss: () => void;
}

/** Each dropped or chosen file's fate by its name: waiting, sending, in the inbox, or why not. */
export function UploadStatus({ uploads, pausedUntil, onRetry, onDismiss }: Props) {
  const failed = uploads.filter((u) => u.state === 'failed');
  const going = uploads.filter((u) => u.state !== 'failed');
  const done = going.filter((u) => u.state === 'done').length;
  return (
    <>
      <div role="status" className="receipts-uploads rinbox-uploads">
        {going.length > 0 ? (
          <>
            <p className="rinbox-uploads-summary">
              {done === going.length
                ? `${done} added to the inbox.`
                : `Sending ${going.length} file${going.length === 1 ? '' : 's'}: ${done} added so far.`}
            </p>
            <ul>
              {going.map((u) => (
                <li key={u.key} className={`upload-${u.state}`}>
                  <span className="receipt-name">
                    {u.state === 'uploading'
                      ? `Uploading ${u.name}…`
                      : u.state === 'done'
                        ? `Added ${u.name}.`
                        : `Waiting: ${u.name}`}
                  </span>
                </li>
              ))}
            </ul>
          </>
        ) : null}
        {pausedUntil === undefined ? null : <Paused until={pausedUntil} />}
      </div>
      <div role="alert" className="receipts-failures rinbox-failures">
        {failed.length > 0 ? (
          <>
            <ul>
              {failed.map((u) => (
                <li key={u.key} className="form-error">
                  <span className="receipt-name">
                    {u.name} was not added: {u.error}
                  </span>
                  {u.canRetry ? (
                    <button
                      type="button"
                      className="link-button"
                      aria-label={`Try ${u.name} again`}
                      onClick={() => onRetry(u.key)}
                    >
                      Try again
                    </button>
                  ) : null}
                </li>
              ))}
            </ul>
            <button type="button" className="link-button" onClick={onDismiss}>
              Dismiss
            </button>
          </>
        ) : null}
      </div>
    </>
  );
}

function Paused({ until }: { until: number }) {
  const left = useSecondsUntil(until);
  return (
    <p className="notice">
      {`Too many uploads at once — continuing ${left ? `in ${left} s` : 'now…'}`}
    </p>
  );
}
