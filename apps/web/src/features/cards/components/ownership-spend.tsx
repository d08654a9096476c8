import { dayRangeToBounds, instantToIsoDay, localTimeZone } from '@card-console/shared/dates';
import { formatCents } from '@card-console/shared/money';
import {
  cardSpendCount,
  netCardSpendCents,
  statusesOf,
} from '@card-console/shared/money-definition';
import { useQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { periodDays } from '../../../lib/periods';
import { indexTotalsQueryOptions } from '../../transactions/api/get-index-transactions';
import { cardOwnersQueryOptions } from '../api/get-card-owners';
import { ownershipChoices } from '../card-ownership';

/**
 * The Cards list narrowed to an owner or a team totals what their cards spent this month (card
 * spend by the definition of money, from the index, the transactions' own totals): its amount,
 * the rows that make it up (a decline or a released hold is not one of them), and a link that
 * opens exactly those rows, by card.
 */
/** The statuses of card spend's rows (money that moved or will): what the link opens. */
const SPEND_STATUSES = statusesOf(['posted', 'pending']);

const count = (buckets: Parameters<typeof cardSpendCount>[0]) => {
  const n = cardSpendCount(buckets);
  return `${n.toLocaleString('en-US')} transaction${n === 1 ? '' : 's'}`;
};

export function OwnershipSpend({
  owner,
  team,
}: {
  owner?: string | undefined;
  team?: string | undefined;
}) {
  const days = periodDays('this-month', instantToIsoDay(Date.now(), localTimeZone()));
  const bounds = dayRangeToBounds(days.from, days.to, localTimeZone());
  const { data, isError } = useQuery(
    indexTotalsQueryOptions({
      ...(owner === undefined ? {} : { owner: [owner] }),
      ...(team === undefined ? {} : { team: [team] }),
      ...(bounds.from === undefined ? {} : { from: String(bounds.from) }),
      ...(bounds.to === undefined ? {} : { to: String(bounds.to) }),
    }),
  );
  // Named as the cards show them ("elena walsh" in a link reads "Elena Walsh").
  const { data: given } = useQuery(cardOwnersQueryOptions());
  const spelled = (names: string[] | undefined, value: string | undefined) =>
    value === undefined ? undefined : ownershipChoices(names ?? [], value).chosen;
  const whose = [
    spelled(
      given?.owners.map((o) => o.name),
      owner,
    ),
    team &&
      `team ${spelled(
        given?.teams.map((t) => t.name),
        team,
      )}`,
  ]
    .filter(Boolean)
    .join(', ');
  return (
    <p className="ownership-spend" aria-live="polite">
      {isError ? (
        <span className="muted">This month's spend of {whose} could not be read.</span>
      ) : data ? (
        <>
          Card spend this month ({whose}):{' '}
          <strong>{formatCents(netCardSpendCents(data.summary.buckets))}</strong> in{' '}
          {count(data.summary.buckets)}.{' '}
        </>
      ) : (
        <span className="muted">Adding up this month's spend…</span>
      )}{' '}
      <Link
        to="/transactions"
        search={{
          period: 'this-month',
          ...(owner === undefined ? {} : { owner: [owner] }),
          ...(team === undefined ? {} : { team: [team] }),
          status: SPEND_STATUSES,
          by: 'card',
        }}
      >
        Those transactions, by card
      </Link>
    </p>
  );
}
