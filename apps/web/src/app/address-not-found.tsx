import { useQuery } from '@tanstack/react-query';
import { NotFound, NotFoundPage } from '../components/dead-end';
import { sessionQueryOptions } from '../features/session/api/get-session';
import { AppShell } from './app-shell';

/**
 * An address no route matches. Signed in, "Page not found" stays in the app's frame, its
 * navigation a click away; signed out (or while the session is asked for, briefly), a page of
 * its own. Loaded only when needed (the root route imports it lazily): the frame is not in the
 * first download.
 */
export default function AddressNotFound() {
  const session = useQuery(sessionQueryOptions());
  if (session.data) {
    return (
      <AppShell session={session.data}>
        <NotFound />
      </AppShell>
    );
  }
  return session.isPending ? null : <NotFoundPage />;
}
