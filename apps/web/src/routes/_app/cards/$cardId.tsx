import { useQueryClient, useSuspenseQuery } from '@tanstack/react-query';
import { createFileRoute, Link } from '@tanstack/react-router';
import { DeadEnd } from '../../../components/dead-end';
import { cardQueryOptions } from '../../../features/cards/api/get-card';
import { validateCardsSearch } from '../../../features/cards/cards-search';
import { CardDetailScreen } from '../../../features/cards/components/card-detail-screen';
import { sessionQueryOptions } from '../../../features/session/api/get-session';
import { ensureOrNotFound } from '../../../lib/ensure-or-not-found';

export const Route = createFileRoute('/_app/cards/$cardId')({
  // Carries the cards list's filters, so "← All cards" returns to exactly that list.
  validateSearch: validateCardsSearch,
  loader: ({ context, params }) =>
    ensureOrNotFound(context.queryClient, cardQueryOptions(params.cardId)),
  notFoundComponent: CardNotFound,
  // The screen and its "not found" in one chunk: a chunk of its own re-split the first
  // download (0.5 kB more, gzipped).
  codeSplitGroupings: [['component', 'notFoundComponent'], ['errorComponent']],
  component: CardDetailRoute,
});

function CardDetailRoute() {
  const { cardId } = Route.useParams();
  const listSearch = Route.useSearch();
  const queryClient = useQueryClient();
  const { data: card } = useSuspenseQuery(cardQueryOptions(cardId));
  const { data: session } = useSuspenseQuery(sessionQueryOptions());
  return (
    <CardDetailScreen
      key={cardId}
      card={card}
      listSearch={listSearch}
      role={session.role}
      stepUpUntil={session.stepUpUntil}
      stepUpMethods={session.stepUpMethods}
      largeMaximumCents={session.largeMaximumCents}
      // A reveal with a second factor renewed the step-up: learn the new deadline.
      onSteppedUp={() =>
        void queryClient.invalidateQueries({ queryKey: sessionQueryOptions().queryKey })
      }
    />
  );
}

function CardNotFound() {
  const listSearch = Route.useSearch();
  return (
    <DeadEnd
      title="Card not found"
      back={
        <Link to="/cards" search={listSearch}>
          ← Back to Cards
        </Link>
      }
    >
      There is no card at this address. The link may be mistyped, or from another card program.
    </DeadEnd>
  );
}
