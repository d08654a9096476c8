import type { LimitImpact } from '@card-console/shared/api/insights';
import { instantToIsoDay, localTimeZone } from '@card-console/shared/dates';
import { centsToDollarInput, formatCents } from '@card-console/shared/money';
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
  const inWindow = {
    // One sub account holds them all: that one; else every sub account (no filter).
    subAccountId: impact.subAccountIds?.length === 1 ? subAccountId : undefined,
    cardId: [cardId],
    from: instantToIsoDay(impact.from, zone),
    to: instantToIsoDay(impact.to, zone),
  };
  const refusedLinks = wouldRefuse.count > 0 && impact.limits ? refusedRanges(impact.limits) : [];
  return (
    <>
      <p>
        In the last 90 days these limits would have refused {transactions(wouldRefuse.count)} (total{' '}
        {formatCents(wouldRefuse.sumCents)}) that went through, and let through{' '}
        {wouldAllow.count.toLocaleString('en-US')} that were refused (total{' '}
        {formatCents(wouldAllow.sumCents)}).
      </p>
      {refusedLinks.length > 0 ? (
        <>
          <ul className="limit-impact-links">
            {refusedLinks.map((range) => (
              <li key={range.label}>
                {/* A new tab: following it must not drop the change under review. */}
                <Link
                  to="/transactions"
                  search={{
                    ...inWindow,
                    status: ['pending', 'settled'],
                    min: range.min,
                    max: range.max,
                    sort: 'amount',
                  }}
                  target="_blank"
                >
                  {refusedLinks.length === 1
                    ? `Open the ${transactions(wouldRefuse.count)} it would have refused`
                    : `Open those ${range.label}`}{' '}
                  (new tab)
                </Link>
              </li>
            ))}
          </ul>
          <p className="muted">
            The list shows this card's paid and pending transactions of those amounts on the
            window's days; it may also hold a refund of such an amount, or one from the first day's
            early hours, which the check leaves out.
          </p>
        </>
      ) : null}
      {subAccountId ? (
        // A new tab: following it must not drop the change under review.
        <Link to="/transactions" search={{ ...inWindow, subAccountId }} target="_blank">
          See all this card's transactions in those 90 days (opens in a new tab)
        </Link>
      ) : null}
    </>
  );
}

/**
 * The amounts the limits refuse, as the Transactions screen's inclusive amount filter can say
 * them: above the maximum (from a cent more) and below the minimum (up to a cent less). Both at
 * once are two ranges the list cannot join, so each gets its own link.
 */
export function refusedRanges(limits: NonNullable<LimitImpact['limits']>) {
  const ranges: { label: string; min?: string; max?: string }[] = [];
  if (limits.maximumCents !== undefined) {
    ranges.push({
      label: `above ${formatCents(limits.maximumCents)}`,
      min: centsToDollarInput(limits.maximumCents + 1),
    });
  }
  if (limits.minimumCents > 0) {
    ranges.push({
      label: `below ${formatCents(limits.minimumCents)}`,
      max: centsToDollarInput(limits.minimumCents - 1),
    });
  }
  return ranges;
}
