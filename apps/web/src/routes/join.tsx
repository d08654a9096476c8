import { createFileRoute, redirect, useRouterState } from '@tanstack/react-router';
import { JoinScreen } from '../features/people/components/join-screen';
import { heldJoinToken, holdJoinToken, joinLinkNumber } from '../features/people/join-token';

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
  // Renders again on each arrival here (another link opened in this tab is one), to read the
  // token that arrival held.
  useRouterState({ select: (state) => state.location.state });
  // Keyed by the link: another one opened in this tab starts from its own lookup.
  return <JoinScreen key={joinLinkNumber()} token={heldJoinToken()} />;
}
