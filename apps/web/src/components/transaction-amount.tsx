import { formatCents } from '@card-console/shared/money';

/** Negative is a debit, positive a credit: told apart by sign, colour and a word. */
export function TransactionAmount({ cents }: { cents: number }) {
  const debit = cents < 0;
  const text = `${debit ? '−' : '+'}${formatCents(Math.abs(cents))}`;
  return (
    <span className={debit ? 'amount debit' : 'amount credit'}>
      <span className="amount-kind">{debit ? 'Debit' : 'Credit'}</span> {text}
    </span>
  );
}
