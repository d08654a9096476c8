import { useQuery } from '@tanstack/react-query';
import { createFileRoute } from '@tanstack/react-router';
import { inboxQueryOptions } from '../../features/receipt-inbox/api/get-inbox';
import { inboxAddressQueryOptions } from '../../features/receipt-inbox/api/inbox-address';
import { ReceiptInboxScreen } from '../../features/receipt-inbox/components/receipt-inbox-screen';
import { validateInboxSearch } from '../../features/receipt-inbox/inbox-search';
import { failsInPlace, rethrowDeadEnd } from '../../lib/list-failure';

export const Route = createFileRoute('/_app/receipts')({
  validateSearch: validateInboxSearch,
  // The loader comes with the screen's code: only the URL check is in the first download.
  codeSplitGroupings: [['loader', 'component']],
  // The address is asked for at once but not waited for: its section shows its own state. A
  // failed list is shown in its place with a Retry, the drop zone kept: the route fails only
  // for a dead end (not allowed, not found).
  loader: ({ context }) => {
    void context.queryClient.prefetchQuery(inboxAddressQueryOptions());
    return context.queryClient
      .ensureQueryData(inboxQueryOptions())
      .then(() => undefined, rethrowDeadEnd);
  },
  component: ReceiptInboxRoute,
});

function ReceiptInboxRoute() {
  const { show } = Route.useSearch();
  const navigate = Route.useNavigate();
  const query = useQuery({ ...inboxQueryOptions(), ...failsInPlace });
  return (
    <ReceiptInboxScreen
      list={query.data}
      error={query.error}
      busy={query.isFetching && !query.data}
      onRetry={() => void query.refetch()}
      show={show}
      onShow={(next) => void navigate({ search: { show: next }, resetScroll: false })}
    />
  );
}
