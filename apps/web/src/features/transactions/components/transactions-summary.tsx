import type { SubAccount } from '@card-console/shared/api/sub-accounts';
import type {
  IndexAnswer,
  IndexFreshness,
  IndexQuery,
} from '@card-console/shared/api/transaction-index';
import { formatCents } from '@card-console/shared/money';
import { Field } from '../../../components/field';
import { formatUpdatedAt } from '../../../lib/format';
import { useRefreshIndex } from '../api/get-index-transactions';
import { groupings, type TransactionsSearch } from '../transactions-search';

const GROUPING_LABELS: Record<(typeof groupings)[number], string> = {
  card: 'Card',
  merchant: 'Merchant',
  category: 'Category',
  declineReason: 'Decline reason',
  subAccount: 'Sub account',
  status: 'Status',
};

const NONE_LABELS: Record<(typeof groupings)[number], string> = {
  card: 'No card (transfers, payments)',
  merchant: 'No merchant',
  category: 'No merchant category',
  declineReason: 'No decline reason',
  subAccount: '—',
  status: '—',
};

const count = (n: number) => `${n.toLocaleString('en-US')} transaction${n === 1 ? '' : 's'}`;

/**
 * Above the list: the whole filtered set's count and sums (not only the rows shown), how
 * fresh the index is with Refresh, and the set's totals by a chosen dimension, whose rows
 * narrow the list to themselves.
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
        <Breakdown
          breakdown={answer.breakdown}
          search={search}
          subAccounts={subAccounts}
          onChange={onChange}
        />
      ) : null}
    </div>
  );
}

/**
 * The set's count and money. Declined charges moved no money: the BFF keeps them out of the
 * debits and credits, and a set of declines only is said as what it is, "All declined, $X
 * attempted", with no money figures. A mixed set's declines are not added to this line: it
 * stays one line at 1280 (15 rows in view), and "Totals by" status shows them with their
 * attempted amounts.
 */
function SummaryFigures({ summary, busy }: { summary: IndexAnswer['summary']; busy: boolean }) {
  const declined = summary.declined;
  return (
    <p className="summary-figures" role="status" aria-busy={busy || undefined}>
      <strong>{count(summary.count)}</strong>
      {declined !== undefined && declined.count === summary.count ? (
        <span>
          All declined, <strong className="num">{formatCents(declined.cents)}</strong> attempted
        </span>
      ) : (
        <>
          <span>
            Debits <strong className="num">{formatCents(summary.debitCents)}</strong>
          </span>
          <span>
            Credits <strong className="num">{formatCents(summary.creditCents)}</strong>
          </span>
        </>
      )}
    </p>
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

type Breakdown = NonNullable<IndexAnswer['breakdown']>;

/** The set's totals by one dimension; a row with a value narrows the list to it. */
function Breakdown({
  breakdown,
  search,
  subAccounts,
  onChange,
}: {
  breakdown: Breakdown;
  search: TransactionsSearch;
  subAccounts: SubAccount[];
  onChange: (next: TransactionsSearch) => void;
}) {
  const subAccountName = new Map(subAccounts.map((s) => [s.id, s.name]));
  const by = breakdown.by;
  // Declines are no money: their attempted amounts get a column of their own, when there are any.
  const declines = breakdown.groups.some((g) => g.declined !== undefined);
  const narrowTo = (key: string): Partial<TransactionsSearch> => {
    switch (by) {
      case 'card':
        return { cardId: [key] };
      case 'merchant':
        return { merchant: [key] };
      case 'category':
        return { category: [key], categoryGroup: undefined };
      case 'declineReason':
        return { declineReason: [key] };
      case 'subAccount':
        return { subAccountId: key };
      case 'status':
        return { status: [key as NonNullable<TransactionsSearch['status']>[number]] };
    }
  };
  const labelOf = (g: Breakdown['groups'][number]) => {
    if (g.key === undefined) return NONE_LABELS[by];
    if (by === 'subAccount') return subAccountName.get(g.key) ?? g.key;
    if (by === 'category') return `${g.key} ${g.label ?? ''}`.trim();
    return g.label ?? g.key;
  };
  return (
    <div className="table-wrap breakdown">
      <table className="breakdown-table">
        <caption className="visually-hidden">Totals by {GROUPING_LABELS[by].toLowerCase()}</caption>
        <thead>
          <tr>
            <th scope="col">{GROUPING_LABELS[by]}</th>
            <th scope="col" className="num">
              Transactions
            </th>
            <th scope="col" className="num">
              Debits
            </th>
            <th scope="col" className="num">
              Credits
            </th>
            {declines ? (
              <th scope="col" className="num">
                Declined
              </th>
            ) : null}
          </tr>
        </thead>
        <tbody>
          {breakdown.groups.map((g) => (
            <tr key={g.key ?? '(none)'}>
              <th scope="row" className="cut" title={labelOf(g)}>
                {g.key === undefined ? (
                  <span className="muted">{labelOf(g)}</span>
                ) : (
                  <button
                    type="button"
                    className="link-button"
                    title={`Show only: ${labelOf(g)}`}
                    onClick={() =>
                      onChange({
                        ...search,
                        ...narrowTo(g.key as string),
                        by: undefined,
                        pages: undefined,
                      })
                    }
                  >
                    {labelOf(g)}
                  </button>
                )}
              </th>
              <td className="num">{g.count.toLocaleString('en-US')}</td>
              <td className="num">{formatCents(g.debitCents)}</td>
              <td className="num">{formatCents(g.creditCents)}</td>
              {declines ? (
                <td className="num">
                  {g.declined ? `${formatCents(g.declined.cents)} attempted` : '—'}
                </td>
              ) : null}
            </tr>
          ))}
        </tbody>
      </table>
      {breakdown.groupCount > breakdown.groups.length ? (
        <p className="muted breakdown-more">
          The {breakdown.groups.length} largest of {breakdown.groupCount.toLocaleString('en-US')} by
          debits.
        </p>
      ) : null}
    </div>
  );
}
