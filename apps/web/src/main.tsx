import { QueryClientProvider } from '@tanstack/react-query';
import { RouterProvider } from '@tanstack/react-router';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { subAccountsQueryOptions } from './features/sub-accounts/api/get-sub-accounts';
import { createQueryClient } from './lib/query-client';
import { createAppRouter } from './router';
import './styles.css';

const queryClient = createQueryClient();
const router = createAppRouter(queryClient);
// Fetch the first screen's code while its data loads (the session, then the list), rather
// than after: the router asks for a route's chunk only once every beforeLoad has run.
for (const route of router.getMatchedRoutes(window.location.pathname)[0]) {
  router.loadRouteChunk(route)?.catch(() => {}); // the router's own load reports failures
}

// Transactions without a sub account opens the first one, so its sub-account list does not
// depend on the session's answer: ask for both at once rather than one after the other (one
// round trip less before the rows; signed out, the 401 changes nothing).
const { pathname, search } = window.location;
if (pathname === '/transactions' && !new URLSearchParams(search).has('subAccountId')) {
  void queryClient.prefetchQuery(subAccountsQueryOptions());
}

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root');
createRoot(root).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <RouterProvider router={router} />
    </QueryClientProvider>
  </StrictMode>,
);
