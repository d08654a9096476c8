import type { SubAccount } from '@card-console/shared/api/sub-accounts';
import type { IndexTotals, IndexTotalsAnswer } from '@card-console/shared/api/transaction-index';
import { formatCents } from '@card-console/shared/money';
import { CellLabel } from '../../../components/cell-label';
import type { groupings, TransactionsSearch } from '../transactions-search';
import { cardSpendOf, figureWords } from './money-figures';

export const GROUPING_LABELS: Record<(typeof groupings)[number], string> = {
  card: 'Card',
  merchant: 'Merchant',
  category: 'Category',
  declineReason: 'Decline reason',
  subAccount: 'Sub account',
  status: 'Status',
  owner: 'Owner',
  team: 'Team',
};

const NONE_LABELS: Record<(typeof groupings)[number], string> = {
  card: 'No card (transfers, payments)',
  merchant: 'No merchant',
  category: 'No merchant category',
  declineReason: 'No decline reason',
  subAccount: '—',
  status: '—',
  // The cards given none (and rows without a card).
  owner: 'No owner',
  team: 'No team',
};

/** "Other 36 cards": the groups past the largest, by what the table is grouped by. */
const OTHER_NOUNS: Record<(typeof groupings)[number], [string, string]> = {
  card: ['card', 'cards'],
  merchant: ['merchant', 'merchants'],
  category: ['category', 'categories'],
  declineReason: ['decline reason', 'decline reasons'],
  subAccount: ['sub account', 'sub accounts'],
  status: ['status', 'statuses'],
  owner: ['owner', 'owners'],
  team: ['team', 'teams'],
};

type Breakdown = NonNullable<IndexTotalsAnswer['breakdown']>;

/**
 * A column of figures, shown when any line has some: card spend and posted always; other
 * payments, transfers in and declines when there are any. Spend is positive; declines and
 * posted are signed as the card service's (negative: money out), so every column adds up.
 */
const columns: {
  key: keyof typeof figureWords;
  always?: boolean;
  of: (t: IndexTotals) => number;
  has: (t: IndexTotals) => boolean;
}[] = [
  { key: 'cardSpend', always: true, of: cardSpendOf, has: () => true },
  {
    key: 'payment',
    of: (t) => 0 - t.buckets.payment.cents,
    has: (t) => t.buckets.payment.count > 0,
  },
  {
    key: 'transfer',
    of: (t) => t.buckets.transfer.cents,
    has: (t) => t.buckets.transfer.count > 0,
  },
  {
    key: 'attempted',
    of: (t) => t.buckets.attempted.cents,
    has: (t) => t.buckets.attempted.count > 0,
  },
  { key: 'posted', always: true, of: (t) => t.posted.cents, has: () => true },
];

/**
 * The set's totals by one dimension: its largest groups, the rest as one line ("Other 36
 * cards"), and the total, which is the summary's: every line adds up. A group with a value
 * narrows the list to it.
 */
export function TotalsBy({
  breakdown,
  summary,
  search,
  subAccounts,
  onChange,
}: {
  breakdown: Breakdown;
  summary: IndexTotals;
  search: TransactionsSearch;
  subAccounts: SubAccount[];
  onChange: (next: TransactionsSearch) => void;
}) {
  const subAccountName = new Map(subAccounts.map((s) => [s.id, s.name]));
  const by = breakdown.by;
  const lines: IndexTotals[] = [...breakdown.groups, ...(breakdown.other ? [breakdown.other] : [])];
  const shown = columns.filter((c) => c.always || lines.some(c.has));
  const narrowTo = (
    g: Breakdown['groups'][number] & { key: string },
  ): Partial<TransactionsSearch> => {
    const key = g.key;
    switch (by) {
      case 'card':
        return { cardId: [key] };
      case 'merchant':
        // A merchant's group is keyed by its name: every way it is written.
        return { merchantName: [key] };
      case 'category':
        return { category: [key], categoryGroup: undefined };
      case 'declineReason':
        return { declineReason: [key] };
      case 'subAccount':
        return { subAccountId: key };
      case 'status':
        return { status: [key as NonNullable<TransactionsSearch['status']>[number]] };
      // An owner's or a team's group is keyed by its name in any case; its label is the
      // spelling the cards show, which the filter (matched in any case) and its chip read.
      case 'owner':
        return { owner: [g.label ?? key] };
      case 'team':
        return { team: [g.label ?? key] };
    }
  };
  /**
   * Whether a group's line can narrow the list to it: a group of none cannot, nor one whose key
   * the filter cannot ask for (a blank text; a category code that is not four digits, which the
   * card service may send): its link would open the whole list.
   */
  const narrows = (g: Breakdown['groups'][number]): g is typeof g & { key: string } =>
    g.key !== undefined && g.key.trim() !== '' && (by !== 'category' || /^\d{4}$/.test(g.key));
  const labelOf = (g: Breakdown['groups'][number]) => {
    if (g.key === undefined || g.key.trim() === '') return NONE_LABELS[by];
    if (by === 'subAccount') return subAccountName.get(g.key) ?? g.key;
    if (by === 'category') return `${g.key} ${g.label ?? ''}`.trim();
    return g.label ?? g.key;
  };
  const figures = (t: IndexTotals) => (
    <>
      <td className="num">
        <CellLabel>Transactions</CellLabel>
        {t.count.toLocaleString('en-US')}
      </td>
      {shown.map((c) => (
        <td key={c.key} className="num">
          <CellLabel>{figureWords[c.key].label}</CellLabel>
          {formatCents(c.of(t))}
        </td>
      ))}
    </>
  );
  const other = breakdown.other;
  const [one, many] = OTHER_NOUNS[by];
  return (
    <div className="table-wrap breakdown">
      <table className="breakdown-table rows-as-cards">
        <caption className="visually-hidden">Totals by {GROUPING_LABELS[by].toLowerCase()}</caption>
        <thead>
          <tr>
            <th scope="col">{GROUPING_LABELS[by]}</th>
            <th scope="col" className="num">
              Transactions
            </th>
            {shown.map((c) => (
              <th key={c.key} scope="col" className="num" title={figureWords[c.key].includes}>
                {figureWords[c.key].label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {breakdown.groups.map((g) => (
            <tr key={g.key ?? '(none)'}>
              <th scope="row">
                {!narrows(g) ? (
                  <span className="muted">{labelOf(g)}</span>
                ) : (
                  <button
                    type="button"
                    className="link-button"
                    title={`Show only: ${labelOf(g)}`}
                    onClick={() =>
                      onChange({
                        ...search,
                        ...narrowTo(g),
                        by: undefined,
                        pages: undefined,
                      })
                    }
                  >
                    {labelOf(g)}
                  </button>
                )}
              </th>
              {figures(g)}
            </tr>
          ))}
          {other ? (
            <tr className="breakdown-other">
              <th scope="row">
                Other {other.groupCount.toLocaleString('en-US')}{' '}
                {other.groupCount === 1 ? one : many}
              </th>
              {figures(other)}
            </tr>
          ) : null}
        </tbody>
        <tfoot>
          <tr>
            <th scope="row">Total</th>
            {figures(summary)}
          </tr>
        </tfoot>
      </table>
      <p className="muted breakdown-more">
        {other
          ? `The ${breakdown.groups.length} largest of ${breakdown.groupCount.toLocaleString('en-US')} by spend, the rest as one line; the lines add up to the total.`
          : 'Every group; the lines add up to the total.'}{' '}
        {shown.map((c) => `${figureWords[c.key].label}: ${figureWords[c.key].includes}`).join(' ')}
      </p>
    </div>
  );
}
