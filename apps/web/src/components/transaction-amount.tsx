import { formatCents } from '@card-console/shared/money';

/**
 * Spend (negative) in the text colour, money back (positive) green with a "+"; a declined charge
 * moved no money, so it is labelled "Declined", muted and struck through, with no sign.
 * Screen readers hear the kind as a word: colour and sign only help.
 */
export function TransactionAmount({ cents, status }: { cents: number; status?: string }) {
  const value = formatCents(Math.abs(cents));
  if (status === 'declined') {
    return (
      <span className="amount declined">
        <span className="amount-kind">Declined</span>
        <span className="amount-value">{value}</span>
      </span>
    );
  }
  const debit = cents < 0;
  return (
    <span className={debit ? 'amount debit' : 'amount credit'}>
      <span className="visually-hidden">{debit ? 'Debit ' : 'Credit '}</span>
      {debit ? value : `+${value}`}
    </span>
  );
}
