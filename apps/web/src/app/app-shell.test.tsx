import { act, screen, waitFor, within } from '@testing-library/react';
import { HttpResponse } from 'msw';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { leavePage } from '../lib/leave-page';
import { adminSession, card, financeSession, productionMeta, subAccounts } from '../test/fixtures';
import { renderApp } from '../test/render-app';
import { apiError, requestsTo, serve, server } from '../test/server';

// jsdom cannot leave the page: record where the app would go instead.
vi.mock('../lib/leave-page', () => ({ leavePage: vi.fn() }));
const leave = vi.mocked(leavePage);
beforeEach(() => leave.mockReset());

function serveLists() {
  server.use(
    serve('subAccounts.list', () => HttpResponse.json({ items: subAccounts })),
    serve('cards.list', () => HttpResponse.json({ items: [card()] })),
    serve('meta.get', () => HttpResponse.json(productionMeta)),
  );
}

describe('signed-in layout', () => {
  it('shows finance the nav without the admin screens, and who is signed in', async () => {
    serveLists();
    renderApp('/sub-accounts', { session: financeSession() });
    const nav = await screen.findByRole('navigation', { name: 'Main' });
    expect(
      within(nav)
        .getAllByRole('link')
        .map((l) => l.textContent),
    ).toEqual([
      'Overview',
      'Sub accounts',
      'Cards',
      'Transactions',
      'Receipts',
      'Chart of accounts',
      'Security',
    ]);
    expect(screen.getByText('finance@example.test')).toBeInTheDocument();
    expect(screen.getByText('finance')).toBeInTheDocument();
    expect(within(nav).getByRole('link', { name: 'Sub accounts' })).toHaveAttribute(
      'aria-current',
      'page',
    );
  });

  it('the menu button opens and closes the navigation, saying which it is', async () => {
    serveLists();
    const { user } = renderApp('/sub-accounts', { session: financeSession() });
    const button = await screen.findByRole('button', { name: 'Menu' });
    expect(button).toHaveAttribute('aria-expanded', 'false');
    expect(button.getAttribute('aria-controls')?.split(' ')).toEqual(['main-nav', 'user-menu']);
    await user.click(button);
    expect(button).toHaveAttribute('aria-expanded', 'true');
    await user.keyboard('{Escape}');
    expect(button).toHaveAttribute('aria-expanded', 'false');
    expect(document.activeElement).toBe(button);
    await user.click(button);
    await user.click(screen.getByRole('link', { name: 'Cards' }));
    await screen.findByRole('heading', { name: 'Cards' });
    expect(button).toHaveAttribute('aria-expanded', 'false');
  });

  it('a long email is in the bar (breaking onto another line, never cut) and whole in its title', async () => {
    serveLists();
    const email = `${'a'.repeat(88)}@example.test`;
    renderApp('/sub-accounts', { session: financeSession({ email }) });
    const shown = await screen.findByText(email);
    expect(shown).toHaveAttribute('title', email);
    expect(shown).toHaveClass('user-email');
  });

  it('shows admins the Chart of accounts, Audit, People and Security links', async () => {
    serveLists();
    renderApp('/sub-accounts', { session: adminSession() });
    const nav = await screen.findByRole('navigation', { name: 'Main' });
    expect(
      within(nav)
        .getAllByRole('link')
        .map((l) => l.textContent),
    ).toEqual([
      'Overview',
      'Sub accounts',
      'Cards',
      'Transactions',
      'Chart of accounts',
      'Audit',
      'People',
      'Security',
    ]);
    expect(within(nav).getByRole('link', { name: 'Chart of accounts' })).toHaveAttribute(
      'href',
      '/accounting-categories',
    );
    expect(within(nav).getByRole('link', { name: 'Security' })).toHaveAttribute(
      'href',
      '/security',
    );
  });

  it('Sign out ends the session on the server and shows sign-in', async () => {
    serveLists();
    server.use(serve('session.signOut', () => new HttpResponse(null, { status: 204 })));
    const { user, router, queryClient } = renderApp('/cards', { session: financeSession() });
    await user.click(await screen.findByRole('button', { name: 'Sign out' }));
    expect(await screen.findByRole('button', { name: 'Sign in' })).toBeInTheDocument();
    expect(requestsTo('/api/session', 'DELETE')).toHaveLength(1);
    expect(router.state.location.pathname).toBe('/sign-in');
    expect(queryClient.getQueryCache().getAll()).toHaveLength(
      queryClient.getQueryCache().findAll({ queryKey: ['meta'] }).length,
    );
  });

  it('signing out of an SSO session also signs out at the provider, after forgetting everything here', async () => {
    serveLists();
    const providerLogoutUrl = 'https://idp.example.test/logout?post_logout_redirect_uri=x';
    let cachedAtLeave: number | undefined;
    server.use(serve('session.signOut', () => HttpResponse.json({ providerLogoutUrl })));
    const { user, router, queryClient } = renderApp('/cards', {
      session: adminSession({ method: 'sso', stepUpMethods: ['provider'] }),
    });
    leave.mockImplementation(() => {
      cachedAtLeave = queryClient.getQueryCache().findAll({ queryKey: ['session'] }).length;
    });
    await user.click(await screen.findByRole('button', { name: 'Sign out' }));
    await waitFor(() => expect(leave).toHaveBeenCalledExactlyOnceWith(providerLogoutUrl));
    expect(cachedAtLeave).toBe(0);
    expect(router.state.location.pathname).toBe('/sign-in');
  });

  it('a password session signs out here only; a provider URL that is not http(s) is ignored', async () => {
    serveLists();
    server.use(serve('session.signOut', () => HttpResponse.json({})));
    const first = renderApp('/cards', { session: financeSession() });
    await first.user.click(await screen.findByRole('button', { name: 'Sign out' }));
    expect(await screen.findByRole('button', { name: 'Sign in' })).toBeInTheDocument();
    first.unmount();

    server.use(
      serve('session.signOut', () =>
        HttpResponse.json({ providerLogoutUrl: 'javascript:alert(1)' }),
      ),
    );
    const second = renderApp('/cards', { session: financeSession() });
    await second.user.click(await screen.findByRole('button', { name: 'Sign out' }));
    expect(await screen.findByRole('button', { name: 'Sign in' })).toBeInTheDocument();
    expect(requestsTo('/api/session', 'DELETE')).toHaveLength(2);
    expect(leave).not.toHaveBeenCalled();
  });

  it('when the session ends, goes to sign-in with a message and returns afterwards', async () => {
    serveLists();
    let alive = true;
    server.use(
      serve('session.get', () =>
        alive ? HttpResponse.json(financeSession()) : apiError(401, 'unauthenticated', 'Expired'),
      ),
      serve('cards.list', () =>
        alive
          ? HttpResponse.json({ items: [card()] })
          : apiError(401, 'unauthenticated', 'Expired'),
      ),
    );
    const { user, router } = renderApp('/sub-accounts');
    await screen.findByRole('heading', { name: 'Sub accounts' });
    alive = false;
    await user.click(screen.getByRole('link', { name: 'Cards' }));
    expect(await screen.findByText(/Your session ended/)).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/sign-in');
    // The address holds text; the sign-in screen reads `expired=true` as yes.
    expect(router.state.location.search).toMatchObject({ redirect: '/cards', expired: 'true' });
  });

  it('when who-am-I fails for another reason, says so instead of signing out', async () => {
    serveLists();
    server.use(serve('session.get', () => apiError(500, 'internal_error', 'Something broke.')));
    const { router } = renderApp('/cards');
    expect(await screen.findByText('Something broke.')).toBeInTheDocument();
    expect(screen.getByText('req-internal_error')).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/cards');
  });

  it('moves focus to the new screen after navigating', async () => {
    serveLists();
    const { user } = renderApp('/sub-accounts', { session: financeSession() });
    await screen.findByRole('heading', { name: 'Sub accounts' });
    await user.click(screen.getByRole('link', { name: 'Cards' }));
    await screen.findByRole('heading', { name: 'Cards' });
    expect(document.activeElement).toBe(screen.getByRole('main'));
    expect(document.title).toBe('Cards · Card Console');
  });

  it('polls who-am-I in the background, marked so it does not extend the session', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    serveLists();
    renderApp('/sub-accounts', { session: financeSession() });
    await screen.findByRole('heading', { name: 'Sub accounts' });
    const before = requestsTo('/api/session').length;
    await act(async () => {
      await vi.advanceTimersByTimeAsync(60_000);
    });
    const polls = requestsTo('/api/session').slice(before);
    expect(polls.length).toBeGreaterThanOrEqual(1);
    for (const poll of polls) {
      expect(poll.headers.get('x-background')).toBe('1');
      expect(poll.headers.get('x-csrf')).toBe('1');
    }
  });
});
