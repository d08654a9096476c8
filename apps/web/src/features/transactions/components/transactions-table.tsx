import type { Card } from '@card-console/shared/api/cards';
import type { Transaction } from '@card-console/shared/api/transactions';
import { Link, useNavigate } from '@tanstack/react-router';
import { StatusBadge } from '../../../components/status-badge';
import { VirtualTable } from '../../../components/virtual-table';
import { formatDateTime, maskedLast4 } from '../../../lib/format';
import type { TransactionsSearch } from '../transactions-search';
import { TransactionAmount } from './transaction-amount';

interface TableProps {
  rows: readonly Transaction[];
  cards: Card[];
  search: TransactionsSearch;
  busy?: boolean;
}

export function TransactionsTable({ rows, cards, search, busy }: TableProps) {
  const navigate = useNavigate();
  const cardName = new Map(cards.map((c) => [c.id, `${c.name} ${maskedLast4(c.last4)}`]));
  const open = (t: Transaction) =>
    void navigate({ to: '/transactions/$transactionId', params: { transactionId: t.id }, search });

  return (
    <VirtualTable
      label="Transactions"
      columns={6}
      rows={rows}
      busy={busy}
      rowKey={(t) => t.id}
      head={
        <tr>
          <th scope="col">Date</th>
          <th scope="col">Description</th>
          <th scope="col">Merchant</th>
          <th scope="col" className="num">
            Amount
          </th>
          <th scope="col">Status</th>
          <th scope="col">Card</th>
        </tr>
      }
      renderRow={(t, index) => (
        <tr aria-rowindex={index + 2} className="clickable" onClick={() => open(t)}>
          <td>{formatDateTime(t.date)}</td>
          <td>
            <Link
              to="/transactions/$transactionId"
              params={{ transactionId: t.id }}
              search={search}
              onClick={(e) => e.stopPropagation()}
            >
              {t.description}
            </Link>
          </td>
          <td>{t.merchant?.description ?? '—'}</td>
          <td className="num">
            <TransactionAmount cents={t.amountCents} />
          </td>
          <td>
            <StatusBadge status={t.status} />
          </td>
          <td>{t.cardId ? <CardLink cardId={t.cardId} name={cardName.get(t.cardId)} /> : '—'}</td>
        </tr>
      )}
    />
  );
}

/** The card a transaction was made with: its name when this tab knows it, a link either way. */
function CardLink({ cardId, name }: { cardId: string; name: string | undefined }) {
  return (
    <Link
      to="/cards/$cardId"
      params={{ cardId }}
      onClick={(e) => e.stopPropagation()}
      aria-label={name ? undefined : `View card ${cardId}`}
    >
      {name ?? 'View card'}
    </Link>
  );
}
