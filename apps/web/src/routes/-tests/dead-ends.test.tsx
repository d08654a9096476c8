import { screen } from '@testing-library/react';
import { HttpResponse } from 'msw';
import { afterEach, beforeEach, describe, expect, it, type MockInstance, vi } from 'vitest';
import {
  adminSession,
  financeSession,
  productionMeta,
  quietOverview,
  subAccounts,
} from '../../test/fixtures';
import { renderApp } from '../../test/render-app';
import { apiError, requestsTo, serve, server } from '../../test/server';

let logged: MockInstance<typeof console.error>;
beforeEach(() => {
  logged = vi.spyOn(console, 'error');
  server.use(
    serve('subAccounts.list', () => HttpResponse.json({ items: subAccounts })),
    serve('overview.get', () => HttpResponse.json(quietOverview())),
  );
});
afterEach(() => vi.restoreAllMocks());

describe('dead ends say what happened and offer a way on, without logging an error', () => {
  it('an unknown transaction: "Transaction not found", back to the list it came from', async () => {
    server.use(serve('transactions.get', () => apiError(404, 'not_found', 'No such transaction.')));
    const { router } = renderApp(
      '/transactions/tx_gone?subAccountId=sa_ops&status=%5B%22settled%22%5D',
      {
        session: financeSession(),
      },
    );
    expect(
      await screen.findByRole('heading', { level: 1, name: 'Transaction not found' }),
    ).toBeInTheDocument();
    const back = screen.getByRole('link', { name: '← Back to Transactions' });
    const href = new URL(back.getAttribute('href') ?? '', 'http://x');
    expect(href.pathname).toBe('/transactions');
    expect(href.searchParams.get('subAccountId')).toBe('sa_ops');
    expect(href.searchParams.get('status')).toBe('settled');
    expect(screen.queryByRole('button', { name: 'Retry' })).not.toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/transactions/tx_gone');
    expect(logged).not.toHaveBeenCalled();
  });

  it('finance opening /audit: "Not allowed", the audit trail is for admins, without asking the BFF', async () => {
    const { user, router } = renderApp('/audit', { session: financeSession() });
    expect(await screen.findByRole('heading', { level: 1, name: 'Not allowed' })).toBeVisible();
    expect(screen.getByText('The audit trail is for admins.')).toBeInTheDocument();
    expect(document.title).toBe('Not allowed · Card Console');
    expect(screen.queryByRole('button', { name: 'Retry' })).not.toBeInTheDocument();
    expect(requestsTo('/api/audit')).toHaveLength(0);
    // Inside the signed-in frame: the navigation is still there.
    expect(screen.getByRole('navigation', { name: 'Main' })).toBeInTheDocument();
    expect(logged).not.toHaveBeenCalled();

    // The way on is the landing screen.
    await user.click(screen.getByRole('link', { name: 'Go to the Overview' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Overview' })).toBeVisible();
    expect(router.state.location.pathname).toBe('/overview');
  });

  it('a screen the BFF refuses (403) is "Not allowed" with its reason, not a Retry', async () => {
    server.use(serve('audit.list', () => apiError(403, 'forbidden', 'Admins only.')));
    renderApp('/audit', { session: adminSession() });
    expect(await screen.findByRole('heading', { level: 1, name: 'Not allowed' })).toBeVisible();
    expect(screen.getByText('Admins only.')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Go to the Overview' })).toHaveAttribute(
      'href',
      '/overview',
    );
    expect(screen.queryByRole('button', { name: 'Retry' })).not.toBeInTheDocument();
    expect(logged).not.toHaveBeenCalled();
  });

  it('an address that is no screen, signed in: "Page not found" inside the app, its navigation kept', async () => {
    renderApp('/no/such/screen', { session: financeSession() });
    expect(await screen.findByRole('heading', { level: 1, name: 'Page not found' })).toBeVisible();
    expect(screen.getByRole('navigation', { name: 'Main' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Go to the Overview' })).toBeInTheDocument();
  });

  it('an address that is no screen, signed out: "Page not found", a page of its own, with a way in', async () => {
    server.use(serve('meta.get', () => HttpResponse.json(productionMeta)));
    renderApp('/no/such/screen', { session: null });
    expect(await screen.findByRole('heading', { level: 1, name: 'Page not found' })).toBeVisible();
    expect(screen.getByRole('main')).toHaveTextContent('Card Console');
    expect(screen.queryByRole('navigation', { name: 'Main' })).not.toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Go to the Overview' })).toBeInTheDocument();
  });

  it('signed out on the first load: straight to sign-in, no error logged', async () => {
    server.use(serve('meta.get', () => HttpResponse.json(productionMeta)));
    const { router } = renderApp('/cards?status=active', { session: null });
    expect(await screen.findByRole('button', { name: 'Sign in' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/sign-in');
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
    expect(logged).not.toHaveBeenCalled();
  });
});
