import { localTimeZone } from '@card-console/shared/dates';
import { keepPreviousData, useInfiniteQuery, useSuspenseQuery } from '@tanstack/react-query';
import { createFileRoute, redirect } from '@tanstack/react-router';
import { Loading } from '../../../components/loading';
import { useCardChoices } from '../../../features/cards/api/use-card-choices';
import { subAccountsQueryOptions } from '../../../features/sub-accounts/api/get-sub-accounts';
import { transactionsQueryOptions } from '../../../features/transactions/api/get-transactions';
import { TransactionsScreen } from '../../../features/transactions/components/transactions-screen';
import {
  type TransactionFilter,
  type TransactionsSearch,
  toTransactionFilter,
  validateTransactionsSearch,
} from '../../../features/transactions/transactions-search';
import { loadInfiniteForRoute } from '../../../lib/load-for-route';
import { noticingValidator, resourceId } from '../../../lib/search-params';
import { useUrlPages } from '../../../lib/use-url-pages';

const searchCheck = noticingValidator(validateTransactionsSearch);

export const Route = createFileRoute('/_app/transactions/')({
  validateSearch: searchCheck.validateSearch,
  // A link's bad values leave the address (the screen says which); the sub account is
  // required: default to the first one, in the URL so the link is complete.
  beforeLoad: async ({ context, search, location }) => {
    const rejected = searchCheck.takeRejected(location.search, search);
    let { subAccountId } = search;
    if (!subAccountId) {
      const subAccounts = await context.queryClient.ensureQueryData(subAccountsQueryOptions());
      // The first one a link can hold: an id the BFF cannot address would be dropped again.
      subAccountId = subAccounts.find((s) => resourceId(s.id) !== undefined)?.id;
      if (subAccountId) {
        // Ask for the list now: the redirected load's loader then waits on this same request.
        const filter = toTransactionFilter({ ...search, subAccountId }, localTimeZone);
        void context.queryClient.prefetchInfiniteQuery({
          ...transactionsQueryOptions(filter),
          pages: search.pages ?? 1,
        });
      }
    }
    if (rejected || subAccountId !== search.subAccountId) {
      throw redirect({
        to: '/transactions',
        search: { ...search, subAccountId },
        replace: true,
        ...(rejected ? { state: { rejectedSearch: rejected } } : {}),
      });
    }
  },
  loaderDeps: ({ search }) => ({
    subAccountId: search.subAccountId,
    from: search.from,
    to: search.to,
    status: search.status,
    cardId: search.cardId,
    pages: search.pages,
  }),
  loader: async ({ context, deps, cause }) => {
    await context.queryClient.ensureQueryData(subAccountsQueryOptions());
    if (!deps.subAccountId) return;
    const filter = toTransactionFilter({ ...deps, subAccountId: deps.subAccountId }, localTimeZone);
    await loadInfiniteForRoute(
      context.queryClient,
      transactionsQueryOptions(filter),
      cause,
      deps.pages,
    );
  },
  component: TransactionsRoute,
});

function TransactionsRoute() {
  const search = Route.useSearch();
  const { subAccountId, pages, ...rest } = Route.useLoaderDeps();
  const { data: subAccounts } = useSuspenseQuery(subAccountsQueryOptions());
  // Card names are a nicety for the filter and the table: loaded when the card filter is opened.
  const cards = useCardChoices(search.cardId);
  const screen = { search, subAccounts, cards };
  if (!subAccountId) {
    return <TransactionsScreen {...screen} filter={undefined} list={undefined} busy={false} />;
  }
  const filter = toTransactionFilter({ ...rest, subAccountId }, localTimeZone);
  return <TransactionsPage screen={screen} filter={filter} pages={pages ?? 1} />;
}

function TransactionsPage({
  screen,
  filter,
  pages,
}: {
  screen: Omit<React.ComponentProps<typeof TransactionsScreen>, 'filter' | 'list' | 'busy'>;
  filter: TransactionFilter;
  pages: number;
}) {
  const navigate = Route.useNavigate();
  const query = useInfiniteQuery({
    ...transactionsQueryOptions(filter),
    placeholderData: keepPreviousData,
    // A failed first page is the route's error; a failed "Load more" keeps the rows shown.
    throwOnError: (_error, q) => q.state.data === undefined,
  });
  const list = useUrlPages(query, pages, (shown) =>
    navigate({
      search: (prev: TransactionsSearch) => ({ ...prev, pages: shown > 1 ? shown : undefined }),
      replace: true,
      resetScroll: false,
    }),
  );
  if (!list) return <Loading />;
  return (
    <TransactionsScreen {...screen} filter={filter} list={list} busy={query.isPlaceholderData} />
  );
}
