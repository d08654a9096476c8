import type { OverviewQuery } from '@card-console/shared/api/overview';
import { useRefreshOverview } from '../api/get-overview';
import { formatReadAt } from '../format-read-at';

/** A message ends with a full stop, once. */
const asSentence = (text: string) => (/[.!?]$/.test(text) ? text : `${text}.`);

/**
 * When the period's days that can still change were read, and a button to read them again
 * now. While that runs the button stays focused and ignores presses (aria-disabled: disabled
 * would drop a keyboard user's focus); a failed refresh says why and the numbers stay.
 */
export function OverviewFreshness({
  query,
  updatedAt,
  busy,
}: {
  query: OverviewQuery;
  updatedAt: string;
  /** Another choice's numbers are on their way: nothing to refresh yet. */
  busy: boolean;
}) {
  const refresh = useRefreshOverview();
  const inactive = refresh.isPending || busy;
  return (
    <div className="overview-freshness">
      <p className="muted" role="status" aria-busy={refresh.isPending || undefined}>
        Updated <time dateTime={updatedAt}>{formatReadAt(updatedAt)}</time>
      </p>
      <button
        type="button"
        aria-disabled={inactive || undefined}
        onClick={() => {
          if (!inactive) refresh.mutate(query);
        }}
      >
        {refresh.isPending ? 'Refreshing…' : 'Refresh'}
      </button>
      {refresh.isError ? (
        <p className="form-error" role="alert">
          Could not refresh: {asSentence(refresh.error.message)} The numbers shown are as of the
          time above.
        </p>
      ) : null}
    </div>
  );
}
