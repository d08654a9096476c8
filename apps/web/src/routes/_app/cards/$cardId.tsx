import { useQueryClient, useSuspenseQuery } from '@tanstack/react-query';
import { createFileRoute } from '@tanstack/react-router';
import { cardQueryOptions } from '../../../features/cards/api/get-card';
import { CardDetailScreen } from '../../../features/cards/components/card-detail-screen';
import { sessionQueryOptions } from '../../../features/session/api/get-session';

export const Route = createFileRoute('/_app/cards/$cardId')({
  loader: ({ context, params }) =>
    context.queryClient.ensureQueryData(cardQueryOptions(params.cardId)),
  component: CardDetailRoute,
});

function CardDetailRoute() {
  const { cardId } = Route.useParams();
  const queryClient = useQueryClient();
  const { data: card } = useSuspenseQuery(cardQueryOptions(cardId));
  const { data: session } = useSuspenseQuery(sessionQueryOptions());
  return (
    <CardDetailScreen
      key={cardId}
      card={card}
      role={session.role}
      stepUpUntil={session.stepUpUntil}
      stepUpMethods={session.stepUpMethods}
      // A reveal with a second factor renewed the step-up: learn the new deadline.
      onSteppedUp={() =>
        void queryClient.invalidateQueries({ queryKey: sessionQueryOptions().queryKey })
      }
    />
  );
}
