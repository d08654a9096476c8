import type { InboxItem } from '@card-console/shared/api/alerts';
import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { Dialog } from '../../../components/dialog';
import { ErrorState } from '../../../components/error-state';
import { formatDateTime } from '../../../lib/format';
import { alertRulesQueryOptions } from '../api/get-alert-rules';
import { inboxQueryOptions } from '../api/get-inbox';
import { useMarkRead } from '../api/mark-read';
import { inboxSummary, relativeTime } from '../inbox-summary';

/** The inbox: newest first, unread marked; opening an alert marks it read. */
export function InboxPanel({ onClose }: { onClose: () => void }) {
  const inbox = useInfiniteQuery(inboxQueryOptions());
  const markRead = useMarkRead();
  const items = inbox.data?.pages.flatMap((page) => page.items) ?? [];
  const anyUnread = items.some((item) => item.readAt === null);
  const open = (item: InboxItem) => {
    if (item.readAt === null) markRead.mutate({ ids: [item.id] });
    onClose();
  };
  return (
    <Dialog title="Alerts" onClose={onClose} className="inbox-dialog">
      <div className="inbox-actions">
        <Link to="/alerts" onClick={onClose}>
          Alert rules
        </Link>
        {/* aria-disabled, not disabled: the dialog puts focus on its first button as it opens. */}
        <button
          type="button"
          aria-disabled={!anyUnread || markRead.isPending || undefined}
          onClick={() => {
            if (anyUnread && !markRead.isPending) markRead.mutate({ all: true });
          }}
        >
          Mark all read
        </button>
      </div>
      {markRead.isError ? (
        <p className="field-error" role="alert">
          Could not mark as read: {markRead.error.message}
        </p>
      ) : null}
      {inbox.isPending ? (
        <p className="muted" role="status">
          Loading alerts…
        </p>
      ) : inbox.isError && items.length === 0 ? (
        <ErrorState error={inbox.error} onRetry={() => void inbox.refetch()} />
      ) : items.length === 0 ? (
        <EmptyInbox onClose={onClose} />
      ) : (
        <>
          <ul className="inbox-list" aria-label="Alerts, newest first">
            {items.map((item) => (
              <InboxRow key={item.id} item={item} onOpen={() => open(item)} />
            ))}
          </ul>
          {inbox.isFetchNextPageError ? (
            <ErrorState error={inbox.error} onRetry={() => void inbox.fetchNextPage()} />
          ) : inbox.hasNextPage ? (
            <button
              type="button"
              className="inbox-more"
              aria-disabled={inbox.isFetchingNextPage || undefined}
              onClick={() => {
                if (!inbox.isFetchingNextPage) void inbox.fetchNextPage();
              }}
            >
              {inbox.isFetchingNextPage ? 'Loading more…' : 'Load more'}
            </button>
          ) : null}
        </>
      )}
    </Dialog>
  );
}

function InboxRow({ item, onOpen }: { item: InboxItem; onOpen: () => void }) {
  const unread = item.readAt === null;
  const summary = inboxSummary(item);
  const text = (
    <>
      {unread ? <span className="visually-hidden">Unread: </span> : null}
      <span className="inbox-summary">{summary}</span>
      <time
        className="inbox-time muted"
        dateTime={item.raisedAt}
        title={formatDateTime(item.raisedAt)}
      >
        {relativeTime(item.raisedAt)}
      </time>
    </>
  );
  return (
    <li className={unread ? 'inbox-item unread' : 'inbox-item'}>
      {item.test ? (
        // A test names no real transaction, card or sub account: it opens its rules.
        <Link to="/alerts" className="inbox-link" onClick={onOpen}>
          {text}
        </Link>
      ) : 'transactionId' in item ? (
        <Link
          to="/transactions/$transactionId"
          params={{ transactionId: item.transactionId }}
          search={{}}
          className="inbox-link"
          onClick={onOpen}
        >
          {text}
        </Link>
      ) : item.cardId ? (
        <Link
          to="/cards/$cardId"
          params={{ cardId: item.cardId }}
          search={{}}
          className="inbox-link"
          onClick={onOpen}
        >
          {text}
        </Link>
      ) : (
        <Link to="/sub-accounts" className="inbox-link" onClick={onOpen}>
          {text}
        </Link>
      )}
    </li>
  );
}

/**
 * No alert yet, said as it is: with rules that send here, that they are on and wait for a
 * matching transaction (not "set up alert rules" to someone who has); else how to get some.
 */
function EmptyInbox({ onClose }: { onClose: () => void }) {
  const rules = useQuery(alertRulesQueryOptions());
  const sending = rules.data?.filter((rule) => rule.enabled && rule.channels.inbox).length ?? 0;
  const rulesLink = (text: string) => (
    <Link to="/alerts" onClick={onClose}>
      {text}
    </Link>
  );
  if (sending > 0) {
    return (
      <p className="inbox-empty">
        No alerts yet. {sending === 1 ? 'One alert rule is' : `${sending} alert rules are`} on and
        {sending === 1 ? ' sends' : ' send'} here: an alert comes when a transaction Card Console
        reads from the card service matches {sending === 1 ? 'it' : 'one'}.
      </p>
    );
  }
  if (rules.data && rules.data.length > 0) {
    return (
      <p className="inbox-empty">
        No alerts yet. None of your {rulesLink('alert rules')} is on and sends here: turn one on, or
        its inbox, to hear about declines, large charges and low balances.
      </p>
    );
  }
  return (
    <p className="inbox-empty">
      No alerts yet. Set up {rulesLink('alert rules')} to hear about declines, large charges and low
      balances.
    </p>
  );
}
