import type { LimitImpact } from '@card-console/shared/api/overview';
import { instantToIsoDay, localTimeZone } from '@card-console/shared/dates';
import { centsToDollarInput, formatCents } from '@card-console/shared/money';
import { moneyWords } from '@card-console/shared/money-definition';
import { useQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { limitImpactQueryOptions, type ProposedLimits } from '../api/get-limit-impact';

const charges = (n: number) => `${n.toLocaleString('en-US')} charge${n === 1 ? '' : 's'}`;

type Charges = LimitImpact['wentThrough'];
type Limits = LimitImpact['current']['limits'];

/** Limits as a person reads them: "$0.00 to $300.00", or "from $5.00, no maximum". */
export const limitsText = (l: Limits) =>
  l.maximumCents === undefined
    ? `from ${formatCents(l.minimumCents)}, no maximum`
    : `${formatCents(l.minimumCents)} to ${formatCents(l.maximumCents)}`;

const sameLimits = (a: Limits, b: Limits) =>
  a.minimumCents === b.minimumCents && a.maximumCents === b.maximumCents;

/**
 * Looser, tighter or the same, as the card's own charges say it: each one (went through or
 * declined for the size limit) judged by the current limits and by the proposed ones.
 */
export function verdictOf(impact: LimitImpact): { title: string; detail: string } {
  const { refusedOnlyByProposed: refused, allowedOnlyByProposed: allowed } = impact;
  // Each charge as the limits judge its amount, whether it went through or was declined.
  const tighter = 'within the current limits and outside the proposed ones';
  const looser = 'outside the current limits and within the proposed ones';
  const some = (c: Charges, where: string, noun = ' of this card’s charges') =>
    `${c.count.toLocaleString('en-US')}${noun} (total ${formatCents(c.sumCents)}) ${c.count === 1 ? 'is' : 'are'} ${where}`;
  switch (impact.effect) {
    case 'looser':
      return { title: 'Looser than the current limits.', detail: `${some(allowed, looser)}.` };
    case 'tighter':
      return { title: 'Tighter than the current limits.', detail: `${some(refused, tighter)}.` };
    case 'mixed':
      return {
        title: 'Tighter for some charges, looser for others.',
        detail: `${some(refused, tighter)}; ${some(allowed, looser, '')}.`,
      };
    default:
      return sameLimits(impact.current.limits, impact.proposed.limits)
        ? { title: 'The same as the current limits.', detail: '' }
        : {
            title: 'No different from the current limits on these 90 days:',
            detail: 'none of this card’s charges falls between the two.',
          };
  }
}

/**
 * What the limits under review would have done to the card's last 90 days, beside what its
 * current limits would have, computed by the BFF. One live region throughout, so the answer is
 * announced without moving focus from the review's heading; a failure says so and leaves
 * confirming as it was.
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
  const { current, proposed } = impact;
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
  const wouldRefuse = proposed.wouldRefuse;
  // Only where the rows were found (no sub account: nothing to list).
  const refusedLinks = wouldRefuse.count > 0 && subAccountId ? refusedRanges(proposed.limits) : [];
  const refusedSearch = (range: AmountRange) => ({
    ...inWindow,
    status: ['pending' as const, 'settled' as const, 'dispute' as const],
    min: range.min,
    max: range.max,
    sort: 'amount' as const,
  });
  const refused = charges(wouldRefuse.count);
  const verdict = verdictOf(impact);
  const cell = (c: Charges) => (
    <>
      {c.count.toLocaleString('en-US')}
      <span className="muted"> · {formatCents(c.sumCents)}</span>
    </>
  );
  return (
    <>
      <p className="limit-impact-verdict">
        <strong>{verdict.title}</strong> {verdict.detail}
      </p>
      <table className="limit-impact-table">
        <caption>This card’s last 90 days, at the current limits and at the proposed ones</caption>
        <thead>
          <tr>
            <th scope="col">Of this card’s charges</th>
            <th scope="col">
              Current limits{' '}
              <span className="limit-impact-range">{limitsText(current.limits)}</span>
            </th>
            <th scope="col">
              Proposed limits{' '}
              <span className="limit-impact-range">{limitsText(proposed.limits)}</span>
            </th>
          </tr>
        </thead>
        <tbody>
          <tr>
            <th scope="row">
              Went through ({charges(impact.wentThrough.count)}): these limits would refuse
            </th>
            <td>{cell(current.wouldRefuse)}</td>
            <td>{cell(proposed.wouldRefuse)}</td>
          </tr>
          <tr>
            <th scope="row">
              Declined for the size limit ({charges(impact.sizeDeclined.count)}): these limits would
              allow
            </th>
            <td>{cell(current.wouldAllow)}</td>
            <td>{cell(proposed.wouldAllow)}</td>
          </tr>
        </tbody>
      </table>
      <p className="muted">
        Went through: {moneyWords.card.includes.toLowerCase()} Declined for the size limit: no money
        moved; counted apart. Each figure is a number of charges and their total.
      </p>
      {/* New tabs: following a link must not drop the change under review. */}
      {refusedLinks.length === 1 && refusedLinks[0] ? (
        <p>
          <Link to="/transactions" search={refusedSearch(refusedLinks[0])} target="_blank">
            Open the {refused} the proposed limits would have refused (new tab)
          </Link>
        </p>
      ) : refusedLinks.length > 1 ? (
        <div>
          <p id={`refused-${cardId}`}>
            Open the {refused} the proposed limits would have refused, in a new tab:
          </p>
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
          The list shows this card&apos;s settled, pending and disputed transactions of those
          amounts on those days: the closest it can say. It may also hold a credit of such an
          amount, or one from the first day before the 90 days began, which the check leaves out.
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
export function refusedRanges(limits: Limits): AmountRange[] {
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
