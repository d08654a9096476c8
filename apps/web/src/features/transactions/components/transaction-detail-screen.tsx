import type { Transaction } from '@card-console/shared/api/transactions';
import { formatCents } from '@card-console/shared/money';
import { Link } from '@tanstack/react-router';
import { StatusBadge } from '../../../components/status-badge';
import { useDocumentTitle } from '../../../components/use-document-title';
import { formatDateTime } from '../../../lib/format';
import type { TransactionsSearch } from '../transactions-search';
import { TransactionAmount } from './transaction-amount';

interface Props {
  transaction: Transaction;
  /** The list this was opened from, so "back" reproduces it. */
  listSearch: TransactionsSearch;
}

export function TransactionDetailScreen({ transaction: t, listSearch }: Props) {
  useDocumentTitle(`Transaction ${t.description}`);
  const original = t.originalCurrency;
  return (
    <section aria-labelledby="transaction-title">
      <p>
        <Link to="/transactions" search={listSearch}>
          ← Back to transactions
        </Link>
      </p>
      <div className="screen-header">
        <h1 id="transaction-title">{t.description}</h1>
        <StatusBadge status={t.status} />
      </div>
      <div className="detail-grid">
        <div className="panel">
          <h2>Amount</h2>
          <p className="big">
            <TransactionAmount cents={t.amountCents} />
          </p>
          <dl className="pairs">
            <dt>Original currency</dt>
            <dd>
              {original?.code ?? '—'}
              {original?.amountCents !== undefined
                ? ` ${formatOriginal(original.amountCents)}`
                : ''}
            </dd>
            <dt>Conversion rate</dt>
            <dd>{original?.conversionRate ?? '—'}</dd>
            <dt>Decline reason</dt>
            <dd>{t.declineReason ?? '—'}</dd>
          </dl>
        </div>
        <div className="panel">
          <h2>Details</h2>
          <dl className="pairs">
            <dt>Merchant</dt>
            <dd>{t.merchant?.description ?? '—'}</dd>
            <dt>Category code</dt>
            <dd>{t.merchant?.categoryCode ?? '—'}</dd>
            <dt>Authorized</dt>
            <dd>{formatDateTime(t.authorizedAt)}</dd>
            <dt>Posted</dt>
            <dd>{formatDateTime(t.date)}</dd>
            <dt>Created</dt>
            <dd>{formatDateTime(t.createdAt)}</dd>
            <dt>Reference number</dt>
            <dd className="mono">{t.referenceNumber}</dd>
            <dt>Card</dt>
            <dd>
              {t.cardId ? (
                <Link to="/cards/$cardId" params={{ cardId: t.cardId }}>
                  {t.cardId}
                </Link>
              ) : (
                '—'
              )}
            </dd>
            <dt>Transaction id</dt>
            <dd className="mono">{t.id}</dd>
          </dl>
        </div>
      </div>
    </section>
  );
}

/** The original amount in its own currency's minor units, shown without a currency symbol. */
function formatOriginal(cents: number): string {
  return formatCents(cents).replace('$', '');
}
