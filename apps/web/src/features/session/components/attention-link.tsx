import { dayRangeToBounds, instantToIsoDay, localTimeZone } from '@card-console/shared/dates';
import { useQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { formatDate } from '../../../lib/format';
import { monthCloseDays } from '../../transactions';
import { attentionQueryOptions } from '../../transactions/api/get-attention';

const count = (n: number) => n.toLocaleString('en-US');

/**
 * The navigation's item counting of what the month close still needs: the transactions not reviewed
 * over the previous calendar month and this month so far, every sub account. It opens them in
 * Transactions; its tooltip names the period and what else is left (no category, declined).
 * Loaded after the first screen, outside the first download; says nothing when it cannot load.
 */
export default function AttentionLink() {
  // Worked out on each render: a tab left open overnight counts the new day's period.
  const zone = localTimeZone();
  const days = monthCloseDays(instantToIsoDay(Date.now(), zone));
  const bounds = dayRangeToBounds(days.from, days.to, zone);
  const attention = useQuery(
    attentionQueryOptions({ from: String(bounds.from), to: String(bounds.to) }),
  );
  if (!attention.data) return null;
  const { unreviewed, uncategorized, declined } = attention.data;
  const n = unreviewed.count;
  const about =
    `Month close, ${formatDate(days.from)} to today (last month and this month so far), every sub account: ` +
    `${count(n)} transaction${n === 1 ? '' : 's'} not reviewed, ${count(uncategorized.count)} with no accounting category, ${count(declined.count)} declined. Opens the unreviewed in Transactions.`;
  return (
    <li className="attention-item">
      <Link
        to="/transactions"
        search={{ review: 'unreviewed', from: days.from, to: days.to }}
        className={n === 0 ? 'attention-link done' : 'attention-link'}
        title={about}
      >
        <span className="attention-count">{count(n)}</span>{' '}
        <span className="attention-words">to review</span>
      </Link>
    </li>
  );
}
