import type { SessionResponse } from '@card-console/shared/api/session';
import { QueryClientProvider } from '@tanstack/react-query';
import { createMemoryHistory, RouterProvider } from '@tanstack/react-router';
import { render } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { HttpResponse } from 'msw';
import { reportCaughtError } from '../lib/caught-errors';
import { createQueryClient } from '../lib/query-client';
import { startRouter } from '../router';
import { apiError, serve, server } from './server';

interface RenderOptions {
  /** Who is signed in; null for nobody. */
  session?: SessionResponse | null;
  /** userEvent options, e.g. to advance fake timers. */
  advanceTimers?: (ms: number) => void;
}

/** Renders the whole app through the real router at `path`, with a fresh cache. */
export function renderApp(path: string, options: RenderOptions = {}) {
  const { session } = options;
  if (session !== undefined) {
    server.use(
      serve('session.get', () =>
        session ? HttpResponse.json(session) : apiError(401, 'unauthenticated', 'Sign in first.'),
      ),
    );
  }
  const queryClient = createQueryClient({ retry: false });
  const history = createMemoryHistory({ initialEntries: [path] });
  // Started before rendering, as the page starts it (start.ts): the render takes over that load.
  const router = startRouter(queryClient, history);
  const user = userEvent.setup(
    options.advanceTimers ? { advanceTimers: options.advanceTimers } : {},
  );
  const view = render(
    <QueryClientProvider client={queryClient}>
      <RouterProvider router={router} />
    </QueryClientProvider>,
    // As in main.tsx: what the app handles is not logged as an error.
    { onCaughtError: reportCaughtError },
  );
  return { ...view, router, history, queryClient, user };
}
