import type { Card } from '@card-console/shared/api/cards';
import { formatCents } from '@card-console/shared/money';

export function limitText(cents: number | undefined): string {
  return cents === undefined ? 'none' : formatCents(cents);
}

/** "min $1.00 · max $500.00" */
export function TransactionLimits({ card }: { card: Card }) {
  const { minimumCents, maximumCents } = card.transactionSizeLimit;
  return (
    <span>
      min {limitText(minimumCents)} · max {limitText(maximumCents)}
    </span>
  );
}

export function UtilizationLimit({ card }: { card: Card }) {
  const u = card.utilizationLimit;
  if (!u || (u.preset === undefined && u.limitCents === undefined)) return <span>—</span>;
  return (
    <span>
      {u.preset ?? 'limit'} {u.limitCents === undefined ? '' : formatCents(u.limitCents)}
    </span>
  );
}
