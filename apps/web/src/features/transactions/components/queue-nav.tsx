import type { IndexQueue } from '@card-console/shared/api/transaction-index';
import { Link, useNavigate } from '@tanstack/react-router';
import { useEffect } from 'react';
import type { TransactionsSearch } from '../transactions-search';

const count = (n: number) => n.toLocaleString('en-US');

/** Whether a key press is meant for a field (typing), not for the page. */
function typing(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName);
}

/**
 * The review queue on a transaction's detail: its place in the list it was opened from ("12 of
 * 1,131"), and Previous and Next, also by the keys K and J when no field has the focus.
 */
export function QueueNav({
  queue,
  listSearch,
}: {
  /** Undefined while it loads (or when it cannot be read: the detail works without it). */
  queue: IndexQueue | undefined;
  listSearch: TransactionsSearch;
}) {
  const navigate = useNavigate();
  const previous = queue?.previous;
  const next = queue?.next;
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.altKey || e.ctrlKey || e.metaKey || e.shiftKey || typing(e.target)) return;
      const to = e.key === 'j' ? next : e.key === 'k' ? previous : undefined;
      if (!to) return;
      e.preventDefault();
      void navigate({
        to: '/transactions/$transactionId',
        params: { transactionId: to.id },
        search: listSearch,
      });
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [next, previous, navigate, listSearch]);

  return (
    <nav className="queue-nav" aria-label="Review queue">
      <p className="queue-place" aria-live="polite">
        {queue === undefined
          ? ' '
          : queue.position !== undefined
            ? `${count(queue.position)} of ${count(queue.count)}`
            : `${count(queue.count)} left in this list`}
      </p>
      <QueueLink to={previous} listSearch={listSearch} rel="prev">
        ← Previous
      </QueueLink>
      <QueueLink to={next} listSearch={listSearch} rel="next">
        Next →
      </QueueLink>
      <small className="muted queue-keys">Keys: K previous, J next</small>
    </nav>
  );
}

function QueueLink({
  to,
  listSearch,
  rel,
  children,
}: {
  to: IndexQueue['next'];
  listSearch: TransactionsSearch;
  rel: 'prev' | 'next';
  children: string;
}) {
  if (!to) {
    return (
      <span className="button-like" aria-disabled="true">
        {children}
      </span>
    );
  }
  return (
    <Link
      className="button-like"
      rel={rel}
      to="/transactions/$transactionId"
      params={{ transactionId: to.id }}
      search={listSearch}
    >
      {children}
    </Link>
  );
}
