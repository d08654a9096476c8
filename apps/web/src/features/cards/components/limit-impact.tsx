import type { LimitImpact } from '@card-console/shared/api/insights';
import { instantToIsoDay, localTimeZone } from '@card-console/shared/dates';
import { formatCents } from '@card-console/shared/money';
import { useQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { limitImpactQueryOptions, type ProposedLimits } from '../api/get-limit-impact';

const transactions = (n: number) => `${n.toLocaleString('en-US')} transaction${n === 1 ? '' : 's'}`;

/**
 * What the limits under review would have done to the card's last 90 days, computed by the
 * BFF. One live region throughout, so the answer is announced without moving focus from the
 * review's heading; a failure says so and leaves confirming as it was.
 */
export function LimitImpactPreview({ cardId, limits }: { cardId: string; limits: ProposedLimits }) {
  const impact = useQuery(limitImpactQueryOptions(cardId, limits));
  return (
    <div className="limit-impact" role="status" aria-live="polite">
      {impact.isPending ? (
        <p className="muted">Checking the last 90 days…</p>
      ) : impact.isError ? (
        <p className="muted">
          Could not check these limits against the last 90 days: {impact.error.message}
        </p>
      ) : (
        <ImpactSummary cardId={cardId} impact={impact.data} />
      )}
    </div>
  );
}

function ImpactSummary({ cardId, impact }: { cardId: string; impact: LimitImpact }) {
  if (impact.examined === 0) {
    return <p>This card has no transactions in the last 90 days to check these limits against.</p>;
  }
  const { wouldRefuse, wouldAllow } = impact;
  const subAccountId = impact.subAccountIds?.[0];
  // The window's days as the Transactions screen reads its filter: in the person's zone.
  const zone = localTimeZone();
  return (
    <>
      <p>
        In the last 90 days these limits would have refused {transactions(wouldRefuse.count)} (total{' '}
        {formatCents(wouldRefuse.sumCents)}) that went through, and let through{' '}
        {wouldAllow.count.toLocaleString('en-US')} that were refused (total{' '}
        {formatCents(wouldAllow.sumCents)}).
      </p>
      {subAccountId ? (
        // A new tab: following it must not drop the change under review.
        <Link
          to="/transactions"
          search={{
            subAccountId,
            cardId: [cardId],
            from: instantToIsoDay(impact.from, zone),
            to: instantToIsoDay(impact.to, zone),
          }}
          target="_blank"
        >
          See this card's transactions in those 90 days (opens in a new tab)
        </Link>
      ) : null}
    </>
  );
}
