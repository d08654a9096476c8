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
      {signedAs(value, cents, status)}
    </span>
  );
}

/**
 * An amount already written without a sign ("$12.00", "€11.50 (EUR)"), signed by the rule above
 * for the transaction whose `cents` and `status` it belongs to: spend and declines bare, money
 * back with a "+". So an amount in another currency reads as the USD one beside it.
 */
export function signedAs(unsigned: string, cents: number, status?: string): string {
  return status === 'declined' || cents < 0 ? unsigned : `+${unsigned}`;
}
