import { useQuery } from '@tanstack/react-query';
import { createFileRoute } from '@tanstack/react-router';
import { peopleQueryOptions } from '../../features/people/api/people';
import { PeopleScreen } from '../../features/people/components/people-screen';
import { ApiError } from '../../lib/api-error';
import { failsInPlace, rethrowDeadEnd } from '../../lib/list-failure';

export const Route = createFileRoute('/_app/people')({
  // Finance reaches this only by its address (the nav leaves it out): say it is for admins, with
  // a way back (RouteError), without asking the BFF for a 403.
  beforeLoad: ({ context }) => {
    if (context.session.role !== 'admin') {
      throw new ApiError({
        status: 403,
        code: 'forbidden',
        detail: 'People are managed by admins.',
      });
    }
  },
  // The loader comes with the screen's code: nothing of this screen is in the first download.
  codeSplitGroupings: [['loader', 'component']],
  // A failed list is shown in the list's place with a Retry, the header and Invite kept: the
  // route fails only for a dead end (not allowed, not found).
  loader: ({ context }) =>
    context.queryClient.ensureQueryData(peopleQueryOptions()).then(() => undefined, rethrowDeadEnd),
  component: PeopleRoute,
});

function PeopleRoute() {
  const query = useQuery({ ...peopleQueryOptions(), ...failsInPlace });
  return (
    <PeopleScreen list={query.data} error={query.error} onRetry={() => void query.refetch()} />
  );
}
