import { useQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { closePresetSearch, countedDaysText, countedWindow } from '../features/transactions';
import { attentionQueryOptions } from '../features/transactions/api/get-attention';

const count = (n: number) => n.toLocaleString('en-US');

/**
 * The navigation's item counting what the month close still has to review: the transactions
 * whose money moved (or will) not reviewed, over the previous calendar month and this month so
 * far, every sub account: the same count, days and words as the Transactions screen's "To
 * review" over a list of every day (the same request). It opens them in Transactions; its
 * tooltip names the days and what else is left. Until the first sync ends it says "still
 * syncing" and how many so far, never a count that reads as done. Loaded after the first
 * screen, outside the first download; says nothing when it cannot load.
 */
export default function AttentionLink() {
  // Worked out on each render: a tab left open overnight counts the new day's period.
  const window = countedWindow({}, Date.now());
  const attention = useQuery(attentionQueryOptions(window.query));
  if (!attention.data) return null;
  const { unreviewed, uncategorized, declined, freshness } = attention.data;
  const n = unreviewed.count;
  const syncing = freshness.updatedAt === undefined;
  const when = countedDaysText(window.days, window.today);
  const about =
    `${syncing ? 'Still syncing, so far: t' : 'T'}o review ${when}, every sub account: ` +
    `${count(n)} transaction${n === 1 ? '' : 's'} whose money moved, not reviewed; ${count(uncategorized.count)} with no accounting category; ` +
    `apart, ${count(declined.count)} declined, canceled or failed (no money moved). Opens those to review in Transactions.`;
  return (
    <li className="attention-item">
      <Link
        to="/transactions"
        search={closePresetSearch(window.today)}
        className={
          syncing ? 'attention-link syncing' : n === 0 ? 'attention-link done' : 'attention-link'
        }
        title={about}
      >
        {syncing ? (
          <>
            <span className="attention-words">To review:</span>{' '}
            <span className="attention-count">
              <span className="attention-syncing">still syncing —</span> {count(n)} so far
            </span>
          </>
        ) : (
          <>
            <span className="attention-count">{count(n)}</span>{' '}
            <span className="attention-words">to review</span>
          </>
        )}
      </Link>
    </li>
  );
}
