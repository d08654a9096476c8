import { useSuspenseQuery } from '@tanstack/react-query';
import { createFileRoute } from '@tanstack/react-router';
import { cardsQueryOptions } from '../../../features/cards/api/get-cards';
import { validateCardsSearch } from '../../../features/cards/cards-search';
import { CardsScreen } from '../../../features/cards/components/cards-screen';
import { currentCursor } from '../../../lib/cursor-stack';

export const Route = createFileRoute('/_app/cards/')({
  validateSearch: validateCardsSearch,
  loaderDeps: ({ search }) => ({
    status: search.status,
    sort: search.sort,
    direction: search.direction,
    cursor: currentCursor(search.cursors),
  }),
  loader: ({ context, deps }) => context.queryClient.ensureQueryData(cardsQueryOptions(deps)),
  component: CardsRoute,
});

function CardsRoute() {
  const search = Route.useSearch();
  const deps = Route.useLoaderDeps();
  const { data } = useSuspenseQuery(cardsQueryOptions(deps));
  return <CardsScreen search={search} page={data} />;
}
