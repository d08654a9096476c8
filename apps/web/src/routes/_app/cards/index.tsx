import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { createFileRoute } from '@tanstack/react-router';
import { Loading } from '../../../components/loading';
import { cardsQueryOptions } from '../../../features/cards/api/get-cards';
import { validateCardsSearch } from '../../../features/cards/cards-search';
import { CardsScreen } from '../../../features/cards/components/cards-screen';
import { currentCursor } from '../../../lib/cursor-stack';
import { loadForRoute } from '../../../lib/load-for-route';

export const Route = createFileRoute('/_app/cards/')({
  validateSearch: validateCardsSearch,
  loaderDeps: ({ search }) => ({
    status: search.status,
    sort: search.sort,
    direction: search.direction,
    cursor: currentCursor(search.cursors),
  }),
  loader: ({ context, deps, cause }) =>
    loadForRoute(context.queryClient, cardsQueryOptions(deps), cause),
  component: CardsRoute,
});

function CardsRoute() {
  const search = Route.useSearch();
  const deps = Route.useLoaderDeps();
  const query = useQuery({
    ...cardsQueryOptions(deps),
    placeholderData: keepPreviousData,
    throwOnError: true,
  });
  if (!query.data) return <Loading />;
  return <CardsScreen search={search} page={query.data} busy={query.isPlaceholderData} />;
}
