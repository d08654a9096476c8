import { screen } from '@testing-library/react';
import { HttpResponse } from 'msw';
import { afterEach, describe, expect, it } from 'vitest';
import { financeSession, productionMeta } from '../../test/fixtures';
import { renderApp } from '../../test/render-app';
import { serve, server } from '../../test/server';
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
