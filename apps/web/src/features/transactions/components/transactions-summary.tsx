import type { SubAccount } from '@card-console/shared/api/sub-accounts';
import type {
  IndexAnswer,
  IndexFreshness,
  IndexQuery,
} from '@card-console/shared/api/transaction-index';
import { Field } from '../../../components/field';
import { formatUpdatedAt } from '../../../lib/format';
import { useRefreshIndex } from '../api/get-index-transactions';
import { groupings, type TransactionsSearch } from '../transactions-search';
import { SummaryFigures } from './summary-figures';
import { GROUPING_LABELS, TotalsBy } from './totals-by';

/**
 * Above the list: the whole filtered set's count and money as docs/money.md defines it (not
 * only the rows shown), how fresh the index is with Refresh, and the set's totals by a chosen
 * dimension, whose rows narrow the list to themselves.
 */
export function TransactionsSummary({
  answer,
  query,
  search,
  subAccounts,
  busy,
  onChange,
}: {
  answer: IndexAnswer;
  query: IndexQuery;
  search: TransactionsSearch;
  subAccounts: SubAccount[];
  busy: boolean;
  onChange: (next: TransactionsSearch) => void;
}) {
  const { summary } = answer;
  return (
    <div className="transactions-summary">
      <SummaryFigures summary={summary} busy={busy} />
      <Freshness freshness={answer.freshness} query={query} />
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
      {answer.breakdown ? (
        <TotalsBy
          breakdown={answer.breakdown}
          summary={summary}
          search={search}
          subAccounts={subAccounts}
          onChange={onChange}
        />
      ) : null}
    </div>
  );
}

function Freshness({ freshness, query }: { freshness: IndexFreshness; query: IndexQuery }) {
  const refresh = useRefreshIndex(query);
  const inactive = refresh.isPending || freshness.syncing;
  return (
    <div className="index-freshness">
      <p className="muted" role="status">
        {freshness.syncing ? (
          `Syncing with the card service: ${freshness.daysDone.toLocaleString('en-US')} of ${freshness.days.toLocaleString('en-US')} days read. The figures grow as it goes.`
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
