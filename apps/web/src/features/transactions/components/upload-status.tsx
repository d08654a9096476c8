import { useSecondsUntil } from '../../../components/use-countdown';
import type { Upload } from './use-receipt-uploads';

interface Props {
  uploads: Upload[];
  /** The server asked to wait (429, 503) until then before the next upload. */
  pausedUntil: number | undefined;
  onDismiss: () => void;
}

/** Each chosen file's fate: waiting, uploading, attached, or why it was not, by its name. */
export function UploadStatus({ uploads, pausedUntil, onDismiss }: Props) {
  const failed = uploads.filter((u) => u.state === 'failed');
  const going = uploads.filter((u) => u.state !== 'failed');
  return (
    <>
      <div role="status" className="receipts-uploads">
        {going.length > 0 ? (
          <ul>
            {going.map((u) => (
              <li key={u.key} className={`upload-${u.state}`}>
                <span className="receipt-name">
                  {u.state === 'uploading'
                    ? `Uploading ${u.name}…`
                    : u.state === 'done'
                      ? `Attached ${u.name}.`
                      : `Waiting: ${u.name}`}
                </span>
              </li>
            ))}
          </ul>
        ) : null}
        {pausedUntil === undefined ? null : <Paused until={pausedUntil} />}
      </div>
      <div role="alert" className="receipts-failures">
        {failed.length > 0 ? (
          <>
            <ul>
              {failed.map((u) => (
                <li key={u.key} className="form-error">
                  <span className="receipt-name">
                    {u.name} was not attached: {u.error}
                  </span>
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
