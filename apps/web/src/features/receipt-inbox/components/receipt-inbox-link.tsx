import { useQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { inboxQueryOptions, needsYouCount } from '../api/get-inbox';

/**
 * "Receipt inbox", with how many receipts need the person (a suggestion to confirm, a
 * transaction to pick) when any do. Says just its name when the inbox cannot be read.
 */
export function ReceiptInboxLink() {
  const { data } = useQuery(inboxQueryOptions());
  const n = needsYouCount(data);
  return (
    <Link to="/receipts" search={{}} className="button rinbox-link">
      Receipt inbox
      {n > 0 ? (
        <>
          {' '}
          <span className="preset-count">{n.toLocaleString('en-US')}</span>{' '}
          <span className="visually-hidden">{n === 1 ? 'needs you' : 'need you'}</span>
        </>
      ) : null}
    </Link>
  );
}
