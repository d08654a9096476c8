import type { AccountingCategory } from '@card-console/shared/api/accounting-categories';
import type { Card } from '@card-console/shared/api/cards';
import type { IndexTransaction } from '@card-console/shared/api/transaction-index';
import { Link, useNavigate } from '@tanstack/react-router';
import { useEffect, useRef } from 'react';
import { CellLabel } from '../../../components/cell-label';
import { StatusBadge } from '../../../components/status-badge';
import { TransactionAmount } from '../../../components/transaction-amount';
import { formatDateTime, formatShortDateTime } from '../../../lib/format';
import type { TransactionsSearch } from '../transactions-search';
import { CardRef } from './card-ref';
import { NotesMarks } from './notes-marks';
import { type RowSelection, rowKey } from './use-row-selection';
import { DEFAULT_VIEW, type OptionalColumn, type TableView } from './use-table-view';

interface TableProps {
  rows: readonly IndexTransaction[];
  /** Cards this tab already knows: a name for a row the BFF could not name. */
  cards: Card[];
  /** Sub accounts by id: a column of its own when the list shows several. */
  subAccountNames: ReadonlyMap<string, string> | undefined;
  search: TransactionsSearch;
  onSort: (sort: Pick<TransactionsSearch, 'sort' | 'dir'>) => void;
  /** The chart of accounts, to show a row's category by its code; undefined while it loads. */
  categories: AccountingCategory[] | undefined;
  /** The rows chosen for a change of their notes. */
  selection: RowSelection;
  /** The rows' boxes are shown (a phone shows them in Select mode only). */
  selecting?: boolean;
  /** A tap on a row selects it rather than opening it (a phone's Select mode). */
  tapSelects?: boolean;
  busy?: boolean;
  /** The person's columns and density (use-table-view.ts); the default view when absent. */
  view?: TableView;
}

/**
 * The merchant as the card network names it ("TST* COASTAL PAPER CO AUSTIN TX", with its city),
 * when it says more than the description; with its category for the tooltip.
 */
function merchantLine(t: IndexTransaction): { text: string; category: string } | undefined {
  const text = t.merchant?.description.trim();
  if (!t.merchant || !text || text.toLowerCase() === t.description.trim().toLowerCase()) {
    return undefined;
  }
  const { categoryCode, categoryName } = t.merchant;
  return { text, category: `${categoryCode}${categoryName ? ` ${categoryName}` : ''}` };
}

/**
 * Every row in the page itself, not virtualised: the browser's find sees them all (at most
 * the 20 pages a link reopens). Nothing that tells a row apart is ever cut: the merchant sits
 * under the description (beside it when compact), the card's holder over its last four, a
 * decline's reason under its status; a long value wraps. On a phone each row is a card. The
 * person chooses the optional columns and the density. Date and Amount sort the list. A
 * checkbox on each row (and one for every row shown) chooses it for a change of its notes.
 */
export function TransactionsTable({
  rows,
  cards,
  subAccountNames,
  search,
  onSort,
  categories,
  selection,
  selecting = true,
  tapSelects = false,
  busy,
  view = DEFAULT_VIEW,
}: TableProps) {
  const navigate = useNavigate();
  const shows = (column: OptionalColumn) => !view.hidden.includes(column);
  const subAccounts = shows('subAccount') ? subAccountNames : undefined;
  const known = new Map(cards.map((c) => [c.id, c]));
  const open = (t: IndexTransaction) =>
    void navigate({ to: '/transactions/$transactionId', params: { transactionId: t.id }, search });
  const sortedBy = search.sort ?? 'date';
  const ascending = search.dir === 'asc';
  const sortHeader = (key: 'date' | 'amount', label: string, className: string) => {
    const current = sortedBy === key;
    // A new column starts newest or largest first; the current one turns around.
    const next = current ? !ascending : false;
    return (
      <th
        scope="col"
        className={className}
        aria-sort={current ? (ascending ? 'ascending' : 'descending') : undefined}
      >
        <button
          type="button"
          className="sort-button"
          title={`Sort by ${label.toLowerCase()}, ${next ? (key === 'date' ? 'oldest' : 'smallest') : key === 'date' ? 'newest' : 'largest'} first`}
          onClick={() =>
            onSort({
              sort: key === 'amount' ? 'amount' : undefined,
              dir: next ? 'asc' : undefined,
            })
          }
        >
          {label}
          <span aria-hidden="true">{current ? (ascending ? ' ↑' : ' ↓') : ''}</span>
        </button>
      </th>
    );
  };

  return (
    <section
      className="table-wrap"
      aria-busy={busy || undefined}
      // A scrollable region must be reachable by keyboard.
      // biome-ignore lint/a11y/noNoninteractiveTabindex: scroll container, see above
      tabIndex={0}
      aria-label="Transactions table"
    >
      <table
        className={`transactions-table rows-as-cards ${view.density}${subAccounts ? ' with-sub-account' : ''}${selecting ? ' selecting' : ''}`}
        aria-label="Transactions"
      >
        <thead>
          <tr>
            <th scope="col" className="col-select">
              <SelectAll
                rows={rows.length}
                selected={selection.rows.length}
                onToggle={selection.toggleAll}
              />
            </th>
            {sortHeader('date', 'Date', 'col-date')}
            <th scope="col" className="col-description">
              Description
            </th>
            {sortHeader('amount', 'Amount', 'num col-amount')}
            {shows('status') ? (
              <th scope="col" className="col-status">
                Status
              </th>
            ) : null}
            {shows('notes') ? (
              <th scope="col" className="col-notes">
                Notes
              </th>
            ) : null}
            {shows('card') ? (
              <th scope="col" className="col-card">
                Card
              </th>
            ) : null}
            {subAccounts ? (
              <th scope="col" className="col-sub-account">
                Sub account
              </th>
            ) : null}
          </tr>
        </thead>
        <tbody>
          {rows.map((t) => {
            const merchant = shows('merchant') ? merchantLine(t) : undefined;
            return (
              <tr
                key={rowKey(t)}
                className={selection.has(t) ? 'clickable selected' : 'clickable'}
                onClick={() => (tapSelects ? selection.toggle(t) : open(t))}
              >
                {/* The whole cell picks the row: a larger target than the box, and no opening. */}
                {/* biome-ignore lint/a11y/useKeyWithClickEvents: the checkbox inside takes the keys */}
                <td className="col-select" onClick={(e) => e.stopPropagation()}>
                  <label>
                    <input
                      type="checkbox"
                      checked={selection.has(t)}
                      aria-label={`Select ${t.description}, ${formatShortDateTime(t.date)}`}
                      onChange={(e) => selection.toggle(t, (e.nativeEvent as MouseEvent).shiftKey)}
                    />
                  </label>
                </td>
                <td className="col-date">
                  <time dateTime={t.date} title={formatDateTime(t.date)}>
                    {formatShortDateTime(t.date)}
                  </time>
                </td>
                <td className="col-description">
                  <Link
                    to="/transactions/$transactionId"
                    params={{ transactionId: t.id }}
                    search={search}
                    onClick={(e) => e.stopPropagation()}
                  >
                    {t.description}
                  </Link>
                  {merchant ? (
                    <span
                      className="merchant-line"
                      title={`Merchant category ${merchant.category}`}
                    >
                      <span className="visually-hidden">Merchant: </span>
                      {merchant.text}
                    </span>
                  ) : null}
                </td>
                <td className="num col-amount">
                  <TransactionAmount cents={t.amountCents} status={t.status} />
                </td>
                {shows('status') ? (
                  <td className="col-status">
                    <StatusBadge status={t.status} />
                    {t.declineReason ? (
                      <span className="decline-reason">
                        <span className="visually-hidden">Decline reason: </span>
                        {t.declineReason}
                      </span>
                    ) : null}
                  </td>
                ) : null}
                {shows('notes') ? (
                  <td className="col-notes">
                    <NotesMarks notes={t.notes} categories={categories} />
                  </td>
                ) : null}
                {shows('card') ? (
                  <td className="col-card">
                    {t.cardId ? (
                      <>
                        <CellLabel>Card</CellLabel>
                        <CardRef
                          cardId={t.cardId}
                          card={t.card ?? known.get(t.cardId)}
                          onClick={(e) => e.stopPropagation()}
                        />
                      </>
                    ) : (
                      <span className="muted">—</span>
                    )}
                  </td>
                ) : null}
                {subAccounts ? (
                  <td className="col-sub-account">
                    <CellLabel>Sub account</CellLabel>
                    {subAccounts.get(t.subAccountId) ?? t.subAccountId}
                  </td>
                ) : null}
              </tr>
            );
          })}
        </tbody>
      </table>
    </section>
  );
}

/** "Select all shown": checked when every row is, mixed when some are. */
function SelectAll({
  rows,
  selected,
  onToggle,
}: {
  rows: number;
  selected: number;
  onToggle: () => void;
}) {
  const box = useRef<HTMLInputElement>(null);
  const some = selected > 0 && selected < rows;
  useEffect(() => {
    if (box.current) box.current.indeterminate = some;
  }, [some]);
  return (
    <input
      ref={box}
      type="checkbox"
      checked={rows > 0 && selected === rows}
      aria-label={`Select all ${rows.toLocaleString('en-US')} shown`}
      onChange={onToggle}
    />
  );
}
