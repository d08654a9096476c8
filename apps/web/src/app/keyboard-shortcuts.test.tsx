import { screen, waitFor, within } from '@testing-library/react';
import { HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { card, financeSession, productionMeta, subAccounts } from '../test/fixtures';
import { renderApp } from '../test/render-app';
import { serve, server } from '../test/server';

function serveLists() {
  server.use(
    serve('subAccounts.list', () => HttpResponse.json({ items: subAccounts })),
    serve('cards.list', () => HttpResponse.json({ items: [card()] })),
    serve('meta.get', () => HttpResponse.json(productionMeta)),
  );
}

describe('keyboard shortcuts', () => {
  it('"?" lists the shortcuts in a dialog; Escape closes it and focus goes back', async () => {
    serveLists();
    const { user } = renderApp('/sub-accounts', { session: financeSession() });
    await screen.findByRole('heading', { name: 'Sub accounts' });
    const cards = screen.getByRole('link', { name: 'Cards' });
    cards.focus();
    await user.keyboard('?');
    const sheet = await screen.findByRole('dialog', { name: 'Keyboard shortcuts' });
    expect(within(sheet).getByText('Go to Transactions')).toBeInTheDocument();
    // Finance has no audit trail: its key is not offered.
    expect(within(sheet).queryByText('Go to Audit')).toBeNull();
    await user.keyboard('{Escape}');
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(document.activeElement).toBe(cards);
  });

  it('the "?" button beside Sign out opens the same sheet, and focus goes back to it', async () => {
    serveLists();
    const { user } = renderApp('/sub-accounts', { session: financeSession() });
    const button = await screen.findByRole('button', { name: 'Keyboard shortcuts' });
    expect(button).toHaveAttribute('aria-keyshortcuts', '?');
    await user.click(button);
    await screen.findByRole('dialog', { name: 'Keyboard shortcuts' });
    await user.click(screen.getByRole('button', { name: 'Close' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(document.activeElement).toBe(button);
  });

  it('"g" then "c" goes to Cards; the same keys typed in a field stay text', async () => {
    serveLists();
    const { user, router } = renderApp('/sub-accounts', { session: financeSession() });
    await screen.findByRole('heading', { name: 'Sub accounts' });
    await user.keyboard('gc');
    await waitFor(() => expect(router.state.location.pathname).toBe('/cards'));

    const field = document.createElement('input');
    document.body.append(field);
    field.focus();
    await user.keyboard('gs?');
    expect(field.value).toBe('gs?');
    expect(router.state.location.pathname).toBe('/cards');
    expect(screen.queryByRole('dialog')).toBeNull();
    field.remove();
  });
});
