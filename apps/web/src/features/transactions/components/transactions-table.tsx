import type { Card } from '@card-console/shared/api/cards';
import type { Transaction } from '@card-console/shared/api/transactions';
import { Link, useNavigate } from '@tanstack/react-router';
import { StatusBadge } from '../../../components/status-badge';
import { VirtualTable } from '../../../components/virtual-table';
import { formatDateTime, formatShortDateTime } from '../../../lib/format';
import type { TransactionsSearch } from '../transactions-search';
import { CardRef } from './card-ref';
import { TransactionAmount } from './transaction-amount';

interface TableProps {
  rows: readonly Transaction[];
  /** Cards this tab already knows: a name for a row the BFF could not name. */
  cards: Card[];
  search: TransactionsSearch;
  busy?: boolean;
}

/**
 * One line per transaction on a wide window (cells cut with "…", the whole text in a tooltip),
 * stacked on a phone: date and amount, description and status, merchant, card.
 */
export function TransactionsTable({ rows, cards, search, busy }: TableProps) {
  const navigate = useNavigate();
  const known = new Map(cards.map((c) => [c.id, c]));
  const open = (t: Transaction) =>
    void navigate({ to: '/transactions/$transactionId', params: { transactionId: t.id }, search });

  return (
    <VirtualTable
      label="Transactions"
      className="transactions-table"
      columns={6}
      rows={rows}
      busy={busy}
      rowHeight={{ wide: 36, narrow: 100 }}
      rowKey={(t) => t.id}
      head={
        <tr>
          <th scope="col" className="col-date">
            Date
          </th>
          <th scope="col" className="col-description">
            Description
          </th>
          <th scope="col" className="col-merchant">
            Merchant
          </th>
          <th scope="col" className="num col-amount">
            Amount
          </th>
          <th scope="col" className="col-status">
            Status
          </th>
          <th scope="col" className="col-card">
            Card
          </th>
        </tr>
      }
      renderRow={(t, index) => (
        <tr aria-rowindex={index + 2} className="clickable" onClick={() => open(t)}>
          <td className="col-date">
            <time dateTime={t.date} title={formatDateTime(t.date)}>
              {formatShortDateTime(t.date)}
            </time>
          </td>
          <td className="col-description cut" title={t.description}>
            <Link
              to="/transactions/$transactionId"
              params={{ transactionId: t.id }}
              search={search}
              onClick={(e) => e.stopPropagation()}
            >
              {t.description}
            </Link>
          </td>
          <td className="col-merchant cut" title={t.merchant?.description}>
            {t.merchant?.description ?? <span className="muted">—</span>}
          </td>
          <td className="num col-amount">
            <TransactionAmount cents={t.amountCents} />
          </td>
          <td className="col-status">
            <StatusBadge status={t.status} />
          </td>
          <td className="col-card">
            {t.cardId ? (
              <CardRef
                cardId={t.cardId}
                card={t.card ?? known.get(t.cardId)}
                onClick={(e) => e.stopPropagation()}
              />
            ) : (
              <span className="muted">—</span>
            )}
          </td>
        </tr>
      )}
    />
  );
}
