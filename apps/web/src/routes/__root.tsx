import { useQuery } from '@tanstack/react-query';
import { createRootRouteWithContext, Outlet } from '@tanstack/react-router';
import { AppShell } from '../app/app-shell';
import { NotFound, NotFoundPage } from '../components/dead-end';
import { sessionQueryOptions } from '../features/session/api/get-session';
import type { RouterContext } from '../router';

export const Route = createRootRouteWithContext<RouterContext>()({
  component: Outlet,
  // An address no route matches (a screen's own "not found" stays in the app).
  notFoundComponent: AddressNotFound,
});

/**
 * Signed in, "Page not found" stays in the app's frame, its navigation a click away; signed
 * out (or while the session is asked for, briefly), a page of its own.
 */
function AddressNotFound() {
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
