import { screen, within } from '@testing-library/react';
import { HttpResponse } from 'msw';
import { afterEach, describe, expect, it } from 'vitest';
import { adminSession, financeSession, productionMeta, subAccounts } from '../../test/fixtures';
import { renderApp } from '../../test/render-app';
import { apiError, serve, server } from '../../test/server';
import { hadSessionHere } from './session-ended';

afterEach(() => window.sessionStorage.clear());

describe('a session that ended', () => {
  it('a tab that had a session and is reloaded after it ended is told why, and keeps where it was', async () => {
    server.use(serve('meta.get', () => HttpResponse.json(productionMeta)));
    window.sessionStorage.setItem('card-console.signed-in', '1');
    const { router } = renderApp('/cards?status=active', { session: null });
    expect(await screen.findByText(/Your session ended/)).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/sign-in');
    expect(router.state.location.search).toEqual({
      redirect: '/cards?status=active',
      expired: 'true',
    });
  });

  it('a change the ended session refused is said to be not saved; a read that meets it is not', async () => {
    server.use(
      serve('meta.get', () => HttpResponse.json(productionMeta)),
      serve('subAccounts.list', () => HttpResponse.json({ items: subAccounts })),
      serve('subAccounts.create', () => apiError(401, 'unauthenticated', 'Sign in first.')),
    );
    const { user, router } = renderApp('/sub-accounts', { session: adminSession() });
    await user.click(await screen.findByRole('button', { name: 'Create sub account' }));
    const dialog = screen.getByRole('dialog', { name: 'Create sub account' });
    await user.type(within(dialog).getByLabelText('Name'), 'Travel');
    await user.click(within(dialog).getByRole('button', { name: 'Create' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'Your session ended before your change was saved, so it was not saved.',
    );
    expect(router.state.location.pathname).toBe('/sign-in');
    expect(router.state.location.search).toEqual({
      redirect: '/sub-accounts',
      expired: 'true',
      unsaved: 'true',
    });
  });

  it('a read the ended session refused says the session ended, and what was not kept', async () => {
    server.use(
      serve('meta.get', () => HttpResponse.json(productionMeta)),
      serve('subAccounts.list', () => apiError(401, 'unauthenticated', 'Sign in first.')),
    );
    const { router } = renderApp('/sub-accounts', { session: financeSession() });
    expect(await screen.findByRole('status')).toHaveTextContent(
      'Your session ended. Sign in again to go back to where you were; anything not yet saved was not kept.',
    );
    expect(router.state.location.search).toEqual({ redirect: '/sub-accounts', expired: 'true' });
    expect(screen.queryByText(/was not saved/)).toBeNull();
  });

  it('a tab that never had one is not told its session ended', async () => {
    server.use(serve('meta.get', () => HttpResponse.json(productionMeta)));
    const { router } = renderApp('/cards?status=active', { session: null });
    expect(await screen.findByRole('button', { name: 'Sign in' })).toBeInTheDocument();
    expect(router.state.location.search).toEqual({ redirect: '/cards?status=active' });
    expect(screen.queryByText(/Your session ended/)).not.toBeInTheDocument();
  });

  it('a signed-in tab remembers it had a session (nothing about the person)', async () => {
    expect(hadSessionHere()).toBe(false);
    renderApp('/audit', { session: financeSession() });
    expect(await screen.findByRole('heading', { level: 1, name: 'Not allowed' })).toBeVisible();
    expect(hadSessionHere()).toBe(true);
    expect(Object.values(window.sessionStorage)).toEqual(['1']);
  });
});
