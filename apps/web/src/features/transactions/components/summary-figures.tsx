import type { IndexTotals } from '@card-console/shared/api/transaction-index';
import { formatCents } from '@card-console/shared/money';
import { cardSpendOf, cardSpendPendingOf, figureWords, unmovedBuckets } from './money-figures';

const count = (n: number) => `${n.toLocaleString('en-US')} transaction${n === 1 ? '' : 's'}`;

/**
 * The whole filtered set's money as docs/money.md defines it: card spend (net of refunds, its
 * pending part said), other payments and transfers in when there are any, and the posted total
 * (what an accounting file of the same filter nets to). What moved no money (declined, released,
 * returned) is counted on a line of its own, never in a total, its amounts signed as the card
 * service's (these mix debits and credits, such as a failed funding credit: only signed sums add
 * up). A fold says what each includes.
 */
export function SummaryFigures({ summary, busy }: { summary: IndexTotals; busy: boolean }) {
  const { buckets } = summary;
  const allAttempted = summary.count > 0 && buckets.attempted.count === summary.count;
  const pending = cardSpendPendingOf(summary);
  const unmoved = unmovedBuckets.filter((b) => buckets[b].count > 0);
  return (
    <div className="summary-money">
      <p className="summary-figures" role="status" aria-busy={busy || undefined}>
        <strong>{count(summary.count)}</strong>
        {allAttempted ? (
          <span>
            All declined (attempted), {formatCents(buckets.attempted.cents)}: no money moved
          </span>
        ) : (
          <>
            <span title={figureWords.cardSpend.includes}>
              Card spend <strong className="num">{formatCents(cardSpendOf(summary))}</strong>
              {pending !== 0 ? (
                <span className="muted"> (of which pending {formatCents(pending)})</span>
              ) : null}
            </span>
            {buckets.refund.count > 0 ? (
              <span title={figureWords.refund.includes}>
                Refunds <strong className="num">{formatCents(buckets.refund.cents)}</strong>
              </span>
            ) : null}
            {buckets.payment.count > 0 ? (
              <span title={figureWords.payment.includes}>
                Other payments{' '}
                <strong className="num">{formatCents(0 - buckets.payment.cents)}</strong>
              </span>
            ) : null}
            {buckets.transfer.count > 0 ? (
              <span title={figureWords.transfer.includes}>
                Transfers in <strong className="num">{formatCents(buckets.transfer.cents)}</strong>
              </span>
            ) : null}
            <span title={figureWords.posted.includes}>
              Posted <strong className="num">{formatCents(summary.posted.cents)}</strong>
            </span>
          </>
        )}
      </p>
      <details className="summary-words">
        <summary>What each total includes</summary>
        {unmoved.length > 0 && !allAttempted ? (
          <p className="summary-unmoved muted">
            No money moved:{' '}
            {unmoved
              .map((b) => {
                const { count: n, cents } = buckets[b];
                return `${figureWords[b].label} ${n.toLocaleString('en-US')} (${formatCents(cents)})`;
              })
              .join(', ')}
          </p>
        ) : null}
        <dl>
          {(
            [
              'cardSpend',
              'refund',
              'payment',
              'transfer',
              'posted',
              'attempted',
              'released',
              'returned',
            ] as const
          ).map((key) => (
            <div key={key}>
              <dt>{figureWords[key].label}</dt>
              <dd>{figureWords[key].includes}</dd>
            </div>
          ))}
        </dl>
      </details>
    </div>
  );
}
