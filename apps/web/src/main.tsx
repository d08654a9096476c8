import { QueryClientProvider } from '@tanstack/react-query';
import { RouterProvider } from '@tanstack/react-router';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { reportCaughtError } from './lib/caught-errors';
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

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root');
createRoot(root, { onCaughtError: reportCaughtError }).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <RouterProvider router={router} />
    </QueryClientProvider>
  </StrictMode>,
);
