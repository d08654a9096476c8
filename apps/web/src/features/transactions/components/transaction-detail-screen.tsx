import type { Transaction } from '@card-console/shared/api/transactions';
import { Link } from '@tanstack/react-router';
import type { ReactNode } from 'react';
import { StatusBadge } from '../../../components/status-badge';
import { signedAs, TransactionAmount } from '../../../components/transaction-amount';
import { useDocumentTitle } from '../../../components/use-document-title';
import { formatDateTime, formatMinorUnits } from '../../../lib/format';
import type { TransactionsSearch } from '../transactions-search';
import { CardRef } from './card-ref';
import { NotesPanel } from './notes-panel';
import { ReceiptsPanel } from './receipts-panel';

interface Props {
  transaction: Transaction;
  /** The list this was opened from, so "back" reproduces it. */
  listSearch: TransactionsSearch;
}

/** A label and its value; left out when there is no value, rather than shown as "—". */
function Pair({ label, children }: { label: string; children: ReactNode }) {
  if (children === undefined || children === null || children === '') return null;
  return (
    <>
      <dt>{label}</dt>
      <dd>{children}</dd>
    </>
  );
}

/** "Airlines (4511)"; the code alone when it names no known category. */
function category(merchant: Transaction['merchant']): string | undefined {
  if (!merchant?.categoryCode) return undefined;
  const { categoryName: name, categoryCode: code } = merchant;
  return name ? `${name} (${code})` : code;
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
        <h1 id="transaction-title" className="cut-heading">
          {t.description}
        </h1>
        <StatusBadge status={t.status} />
      </div>
      <div className="detail-grid">
        <div className="panel">
          <h2>Amount</h2>
          <p className="big">
            <TransactionAmount cents={t.amountCents} status={t.status} />
          </p>
          <dl className="pairs">
            <Pair label="Original amount">
              {original?.code && original.amountCents !== undefined
                ? signedAs(
                    formatMinorUnits(Math.abs(original.amountCents), original.code),
                    t.amountCents,
                    t.status,
                  )
                : original?.code}
            </Pair>
            <Pair label="Conversion rate">{original?.conversionRate?.toString()}</Pair>
            <Pair label="Decline reason">{t.declineReason}</Pair>
          </dl>
        </div>
        <div className="panel">
          <h2>Details</h2>
          <dl className="pairs">
            <Pair label="Card">
              {t.cardId ? <CardRef cardId={t.cardId} card={t.card} /> : undefined}
            </Pair>
            <Pair label="Merchant">{t.merchant?.description}</Pair>
            <Pair label="Category">{category(t.merchant)}</Pair>
            <Pair label="Authorized">
              {t.authorizedAt ? formatDateTime(t.authorizedAt) : undefined}
            </Pair>
            {/* A declined charge never posted: no money moved, so no posted time. */}
            <Pair label="Posted">
              {t.status === 'declined' ? undefined : formatDateTime(t.date)}
            </Pair>
            <Pair label="Created">{t.createdAt ? formatDateTime(t.createdAt) : undefined}</Pair>
            <Pair label="Reference number">
              {t.referenceNumber ? <span className="mono">{t.referenceNumber}</span> : undefined}
            </Pair>
            <Pair label="Transaction id">
              <span className="mono">{t.id}</span>
            </Pair>
          </dl>
        </div>
      </div>
      <NotesPanel transactionId={t.id} merchant={t.merchant?.description} />
      <ReceiptsPanel key={t.id} transactionId={t.id} />
    </section>
  );
}
