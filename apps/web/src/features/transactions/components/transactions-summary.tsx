import type { SubAccount } from '@card-console/shared/api/sub-accounts';
import type {
  IndexFreshness,
  IndexQuery,
  IndexTotalsAnswer,
} from '@card-console/shared/api/transaction-index';
import { Field } from '../../../components/field';
import { formatTimeLeft, formatUpdatedAt } from '../../../lib/format';
import { useRefreshIndex } from '../api/get-index-transactions';
import { groupings, type TransactionsSearch } from '../transactions-search';
import { SummaryFigures } from './summary-figures';
import { GROUPING_LABELS, TotalsBy } from './totals-by';

/**
 * Above the list: the whole filtered set's count and money as docs/money.md defines it (not
 * only the rows shown), how fresh the index is with Refresh, and the set's totals by a chosen
 * dimension, whose rows narrow the list to themselves. The figures are their own answer: until
 * it comes the rows show, and the figures say they are being counted.
 */
export function TransactionsSummary({
  freshness,
  totals,
  totalsError,
  query,
  search,
  subAccounts,
  busy,
  onChange,
}: {
  freshness: IndexFreshness;
  totals: IndexTotalsAnswer | undefined;
  totalsError: unknown;
  query: IndexQuery;
  search: TransactionsSearch;
  subAccounts: SubAccount[];
  busy: boolean;
  onChange: (next: TransactionsSearch) => void;
}) {
  return (
    <div className="transactions-summary">
      {totals ? (
        <SummaryFigures summary={totals.summary} busy={busy} />
      ) : totalsError ? (
        <p className="form-error summary-figures" role="alert">
          The figures of these transactions could not be counted: {errorText(totalsError)}
        </p>
      ) : (
        <p className="summary-figures muted" role="status" aria-busy="true">
          Counting these transactions…
        </p>
      )}
      <Freshness freshness={freshness} query={query} />
      <Field label="Totals by" className="totals-by-field">
        {(control) => (
          <select
            {...control}
            value={search.by ?? ''}
            onChange={(e) =>
              onChange({
                ...search,
                by: (e.target.value || undefined) as TransactionsSearch['by'],
              })
            }
          >
            <option value="">None</option>
            {groupings.map((g) => (
              <option key={g} value={g}>
                {GROUPING_LABELS[g]}
              </option>
            ))}
          </select>
        )}
      </Field>
      {totals?.breakdown ? (
        <TotalsBy
          breakdown={totals.breakdown}
          summary={totals.summary}
          search={search}
          subAccounts={subAccounts}
          onChange={onChange}
        />
      ) : null}
    </div>
  );
}

/**
 * The running syncs' progress, worded as what this sync has read: the count above it is the
 * list's (every sub account the index holds, some of them synced before), and the two side by
 * side ("503 transactions" above "332 transactions so far") read as one figure that disagreed.
 */
function syncProgressText(freshness: IndexFreshness): string {
  const n = (value: number) => value.toLocaleString('en-US');
  const days = `${n(freshness.daysDone)} of ${n(freshness.days)} days`;
  const read =
    freshness.rows === undefined
      ? days
      : `${days} and ${n(freshness.rows)} transaction${freshness.rows === 1 ? '' : 's'}`;
  const left = freshness.doneAt === undefined ? '' : `, ${formatTimeLeft(freshness.doneAt)}`;
  return `Syncing with the card service: this sync has read ${read}${left}. The figures grow as it goes.`;
}

function Freshness({ freshness, query }: { freshness: IndexFreshness; query: IndexQuery }) {
  const refresh = useRefreshIndex(query);
  const inactive = refresh.isPending || freshness.syncing;
  return (
    <div className="index-freshness">
      <p className="muted" role="status">
        {!freshness.syncing && freshness.failed ? (
          <SyncFailed failed={freshness.failed} updatedAt={freshness.updatedAt} />
        ) : freshness.syncing ? (
          syncProgressText(freshness)
        ) : freshness.updatedAt === undefined ? (
          'Not synced yet.'
        ) : (
          <>
            Updated{' '}
            <time dateTime={new Date(freshness.updatedAt).toISOString()}>
              {formatUpdatedAt(new Date(freshness.updatedAt).toISOString())}
            </time>
          </>
        )}
      </p>
      <button
        type="button"
        aria-disabled={inactive || undefined}
        onClick={() => {
          if (!inactive) refresh.mutate();
        }}
      >
        {refresh.isPending ? 'Refreshing…' : 'Refresh'}
      </button>
      {refresh.isError ? (
        <p className="form-error" role="alert">
          Could not refresh: {refresh.error.message} The list is as of the time above.
        </p>
      ) : null}
    </div>
  );
}

/**
 * The last sync failed: why, when it is tried again (reads before then do not restart it), and
 * what the list holds meanwhile.
 */
function SyncFailed({
  failed,
  updatedAt,
}: {
  failed: NonNullable<IndexFreshness['failed']>;
  updatedAt: number | undefined;
}) {
  const time = (ms: number) => (
    <time dateTime={new Date(ms).toISOString()}>{formatUpdatedAt(new Date(ms).toISOString())}</time>
  );
  return (
    <span className="sync-failed">
      The last sync with the card service failed: {failed.reason} It is tried again at{' '}
      {time(failed.retryAt)}.{' '}
      {updatedAt === undefined ? (
        'The list holds what was read before it stopped.'
      ) : (
        <>The list is as of {time(updatedAt)}.</>
      )}
    </span>
  );
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : 'try again.';
}
