import { createFileRoute, redirect } from '@tanstack/react-router';
import { JoinScreen } from '../features/people/components/join-screen';
import { heldJoinToken, holdJoinToken } from '../features/people/join-token';

// Public, outside the signed-in layout: an invitation link opens here, its token in the fragment.
export const Route = createFileRoute('/join')({
  // First of all the token leaves the address bar (a replace, so no history entry keeps it);
  // the page reads it from memory.
  beforeLoad: ({ location }) => {
    if (!location.hash) return;
    holdJoinToken(location.hash);
    throw redirect({ to: '/join', replace: true });
  },
  component: JoinRoute,
});

function JoinRoute() {
  return <JoinScreen token={heldJoinToken()} />;
}
