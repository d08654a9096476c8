import { formatCents } from '@card-console/shared/money';
import { signedAs, TransactionAmount } from '../../../components/transaction-amount';
import { formatDate } from '../../../lib/format';

export interface TransactionFacts {
  description: string;
  merchant?: string | undefined;
  at: string;
  amountCents: number;
  status?: string | undefined;
}

/**
 * A transaction in words, for a button's name: "Coffee beans, Mar 5, 2026, $12.50", its amount
 * signed as the screen shows it (spend bare, money back with a "+").
 */
export function transactionLabel(t: TransactionFacts): string {
  const amount = signedAs(formatCents(Math.abs(t.amountCents)), t.amountCents, t.status);
  return `${t.description}, ${formatDate(t.at)}, ${amount}`;
}

/** A transaction as a candidate shows it: its description (and merchant), date and amount. */
export function TransactionSummary({ t }: { t: TransactionFacts }) {
  return (
    <span className="rinbox-tx">
      <span className="rinbox-tx-name">{t.description}</span>{' '}
      {t.merchant && t.merchant !== t.description ? (
        <>
          <span className="muted rinbox-tx-merchant">{t.merchant}</span>{' '}
        </>
      ) : null}
      <span className="rinbox-tx-facts">
        {formatDate(t.at)} · <TransactionAmount cents={t.amountCents} status={t.status} />
      </span>
    </span>
  );
}
