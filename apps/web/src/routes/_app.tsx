import { useSuspenseQuery } from '@tanstack/react-query';
import { createFileRoute, isRedirect, redirect } from '@tanstack/react-router';
import { AppShell } from '../app/app-shell';
import { sessionQueryOptions } from '../features/session/api/get-session';
import { hadSessionHere, rememberSignedIn } from '../features/session/session-ended';
import { isApiError } from '../lib/api-error';

export const Route = createFileRoute('/_app')({
  beforeLoad: async ({ context, location }) => {
    try {
      const session = await context.queryClient.ensureQueryData(sessionQueryOptions());
      rememberSignedIn();
      // The organisation requires a second factor and this person has none: Security first.
      if (session.secondFactorEnrolmentRequired && location.pathname !== '/security') {
        throw redirect({ to: '/security' });
      }
      return { session };
    } catch (error) {
      if (isRedirect(error)) throw error;
      if (isApiError(error) && error.status === 401) {
        // A tab that had a session (a reload after it ended) is told why it is here.
        const expired = hadSessionHere() || undefined;
        throw redirect({ to: '/sign-in', search: { redirect: location.href, expired } });
      }
      throw error;
    }
  },
  component: AppLayout,
});

function AppLayout() {
  const { data: session } = useSuspenseQuery(sessionQueryOptions());
  return <AppShell session={session} />;
}
