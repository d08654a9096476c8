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
  // Only where the rows were found (no sub account: nothing to list).
  const refusedLinks =
    wouldRefuse.count > 0 && impact.limits && subAccountId ? refusedRanges(impact.limits) : [];
  const refusedSearch = (range: AmountRange) => ({
    ...inWindow,
    status: ['pending' as const, 'settled' as const],
    min: range.min,
    max: range.max,
    sort: 'amount' as const,
  });
  const refused = transactions(wouldRefuse.count);
  return (
    <>
      <p>
        In the last 90 days these limits would have refused {refused} (total{' '}
        {formatCents(wouldRefuse.sumCents)}) that went through, and let through{' '}
        {wouldAllow.count.toLocaleString('en-US')} that were refused (total{' '}
        {formatCents(wouldAllow.sumCents)}).
      </p>
      {/* New tabs: following a link must not drop the change under review. */}
      {refusedLinks.length === 1 && refusedLinks[0] ? (
        <p>
          <Link to="/transactions" search={refusedSearch(refusedLinks[0])} target="_blank">
            Open the {refused} it would have refused (new tab)
          </Link>
        </p>
      ) : refusedLinks.length > 1 ? (
        <div>
          <p id={`refused-${cardId}`}>Open the {refused} it would have refused, in a new tab:</p>
          <ul className="limit-impact-links" aria-labelledby={`refused-${cardId}`}>
            {refusedLinks.map((range) => (
              <li key={range.label}>
                <Link to="/transactions" search={refusedSearch(range)} target="_blank">
                  Those {range.label}
                </Link>
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      {refusedLinks.length > 0 ? (
        <p className="muted">
          The list shows this card&apos;s paid and pending transactions of those amounts on those
          days: the closest it can say. It may also hold a credit of such an amount, or one from the
          first day before the 90 days began, which the check leaves out.
        </p>
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

interface AmountRange {
  label: string;
  /** Dollars as the Transactions screen's filter takes them (both inclusive). */
  min?: string;
  max?: string;
}

/**
 * The amounts the limits refuse, as the Transactions screen's inclusive amount filter can say
 * them: above the maximum (from a cent more) and below the minimum (up to a cent less). Both at
 * once are two ranges the list cannot join, so each gets its own link.
 */
export function refusedRanges(limits: NonNullable<LimitImpact['limits']>): AmountRange[] {
  const ranges: AmountRange[] = [];
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
