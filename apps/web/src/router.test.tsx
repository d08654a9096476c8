import { QueryClientProvider } from '@tanstack/react-query';
import { createMemoryHistory, RouterProvider } from '@tanstack/react-router';
import { render, screen, waitFor } from '@testing-library/react';
import { HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { createQueryClient } from './lib/query-client';
import { startRouter } from './router';
import { financeSession, productionMeta, subAccounts } from './test/fixtures';
import { indexRow, serveIndex } from './test/serve-index';
import { requestsTo, sentRequests, serve, server, serveSignedOut } from './test/server';

const reads = () =>
  sentRequests.map((r) => {
    const url = new URL(r.url);
    return `${url.pathname}${url.search}`;
  });

function serveProgram() {
  server.use(
    serve('session.get', () => HttpResponse.json(financeSession())),
    serve('subAccounts.list', () => HttpResponse.json({ items: subAccounts })),
  );
  serveIndex([indexRow()]);
}

/** The router as the page's first script starts it (start.ts): loading, nothing rendered. */
function start(path: string) {
  const queryClient = createQueryClient({ retry: false });
  const router = startRouter(queryClient, createMemoryHistory({ initialEntries: [path] }));
  const renderApp = () =>
    render(
      <QueryClientProvider client={queryClient}>
        <RouterProvider router={router} />
      </QueryClientProvider>,
    );
  return { router, renderApp };
}

describe('the router, started before React renders', () => {
  it('on the Transactions landing reads the session, then the sub accounts, the list of all of them and its figures at once', async () => {
    serveProgram();
    const { router, renderApp } = start('/transactions');
    await waitFor(() => expect(requestsTo('/api/index/transactions')).toHaveLength(1));
    expect(reads()[0]).toBe('/api/session');
    await waitFor(() => expect(requestsTo('/api/index/transactions/totals')).toHaveLength(1));
    expect(reads().slice(1).sort()).toEqual([
      '/api/index/transactions',
      '/api/index/transactions/totals',
      '/api/sub-accounts',
    ]);
    expect(sentRequests[0]?.headers.get('x-csrf')).toBe('1');

    // Rendering takes over that load: the rows come from it, nothing is asked for again. What
    // the screen adds once shown (the chart of accounts for the notes' codes, the month close's
    // counts, the alerts bell's unread count) comes after. The navigation's and the presets'
    // counts are one request: a list of every day counts the month close's days, as the navigation.
    renderApp();
    expect(await screen.findByRole('row', { name: /Coffee beans/ })).toBeInTheDocument();
    expect(router.state.location.search).toEqual({});
    await waitFor(() => expect(reads()).toHaveLength(7));
    expect(
      reads()
        .slice(4)
        .map((r) => r.split('?')[0])
        .sort(),
    ).toEqual([
      '/api/accounting-categories',
      '/api/alerts/inbox/unread-count',
      '/api/index/attention',
    ]);
  });

  it('reads any list the address names, filters and all, as the screen will ask for it', async () => {
    serveProgram();
    const { renderApp } = start('/transactions?subAccountId=sa_ops&status=settled,refund');
    await waitFor(() => expect(requestsTo('/api/index/transactions')).toHaveLength(1));
    expect(reads()).toContain(
      '/api/index/transactions?subAccountId=sa_ops&status=settled&status=refund',
    );

    renderApp();
    expect(await screen.findByRole('row', { name: /Coffee beans/ })).toBeInTheDocument();
    expect(requestsTo('/api/index/transactions')).toHaveLength(1);
    expect(requestsTo('/api/index/transactions/totals')).toHaveLength(1);
    expect(requestsTo('/api/sub-accounts')).toHaveLength(1);
    expect(requestsTo('/api/session')).toHaveLength(1);
  });

  it('opens an old link (lists and amounts in JSON) to the same filters, and shows its address readable', async () => {
    serveProgram();
    const { router, renderApp } = start(
      '/transactions?subAccountId=%22sa_ops%22&status=%5B%22settled%22%2C%22refund%22%5D&min=%2212.50%22&pages=1',
    );
    renderApp();
    expect(await screen.findByRole('row', { name: /Coffee beans/ })).toBeInTheDocument();
    expect(reads()).toContain(
      '/api/index/transactions?subAccountId=sa_ops&status=settled&status=refund&minCents=1250',
    );
    // Links the screen makes from here on are readable. (The address bar keeps the link as it
    // was opened until a filter changes: rewriting it in place would load the screen again.)
    expect(router.state.location.href).toBe(
      '/transactions?subAccountId=sa_ops&status=settled,refund&min=12.50&pages=1',
    );
  });

  it('signed out, asks only for the session and goes to sign-in once rendered', async () => {
    serveSignedOut(productionMeta);
    const { router, renderApp } = start('/transactions');
    renderApp();
    expect(await screen.findByRole('button', { name: 'Sign in' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/sign-in');
    expect(requestsTo('/api/session')).toHaveLength(1);
    expect(requestsTo('/api/sub-accounts')).toHaveLength(0);
    expect(requestsTo('/api/index/transactions')).toHaveLength(0);
  });
});
