import type { QueryClient } from '@tanstack/react-query';
import { createRouter, Link, type RouterHistory } from '@tanstack/react-router';
import { DeadEnd } from './components/dead-end';
import { Loading } from './components/loading';
import { RouteError } from './components/route-error';
import { sessionQueryOptions } from './features/session/api/get-session';
import { setUnauthenticatedListener } from './lib/api-client';
import { forgetSignedInData } from './lib/query-client';
import { parseSearch, stringifySearch } from './lib/url-search';
import { routeTree } from './routeTree.gen';

export interface RouterContext {
  queryClient: QueryClient;
}

export function createAppRouter(queryClient: QueryClient, history?: RouterHistory) {
  const router = createRouter({
    routeTree,
    context: { queryClient },
    ...(history ? { history } : {}),
    defaultPreload: 'intent',
    // The query cache decides freshness; the router always asks it.
    defaultPreloadStaleTime: 0,
    defaultPendingComponent: () => <Loading />,
    // Show "Loading…" soon on a slow load, but not as a flash on quick answers. Once shown it
    // stays at least 100 ms (no one-frame blink); a longer minimum held back data that had
    // already arrived: 300 ms cost a slow cold load of Transactions 300 ms (bench/report.md).
    defaultPendingMs: 200,
    defaultPendingMinMs: 100,
    defaultErrorComponent: RouteError,
    defaultNotFoundComponent: () => (
      <DeadEnd title="Not found" back={<Link to="/overview">Go to the Overview</Link>}>
        There is nothing at this address.
      </DeadEnd>
    ),
    scrollRestoration: true,
    // Readable links (`?status=declined,settled&min=500`) that old JSON-quoted ones still open.
    parseSearch,
    stringifySearch,
  });

  // A 401 "unauthenticated" after having been signed in means the session ended (idle
  // timeout, sign-out elsewhere): go to sign-in with a message and a way back. A change it
  // refused was not made: the sign-in page says so (`unsaved`).
  setUnauthenticatedListener((_error, request) => {
    if (queryClient.getQueryData(sessionQueryOptions().queryKey) === undefined) return;
    const here = router.state.location;
    if (here.pathname === '/sign-in') return;
    const unsaved = request.change || undefined;
    void router
      .navigate({
        to: '/sign-in',
        search: { redirect: here.href, expired: true, unsaved },
        replace: true,
      })
      .then(() => forgetSignedInData(queryClient));
  });

  return router;
}

/**
 * The app's router with the page's data and code already on their way: `router.load()` runs
 * the matched routes' `beforeLoad`s and loaders at once (the session, then the screen's
 * reads, into the query cache under the keys the screens read), and the matched routes'
 * code is asked for alongside rather than after every `beforeLoad` has run. `RouterProvider`
 * then renders this load instead of starting another, and the screens' queries find their
 * data in the cache or on its way: nothing is asked for twice.
 */
export function startRouter(queryClient: QueryClient, history?: RouterHistory) {
  const router = createAppRouter(queryClient, history);
  for (const route of router.getMatchedRoutes(router.latestLocation.pathname)[0]) {
    router.loadRouteChunk(route)?.catch(() => {}); // the load itself reports a failure
  }
  // A route's failure is its error screen; only the router's own fault rejects (logged as
  // RouterProvider logs the load it would otherwise start).
  router.load().catch(console.error);
  return router;
}

declare module '@tanstack/react-router' {
  interface Register {
    router: ReturnType<typeof createAppRouter>;
  }
}
