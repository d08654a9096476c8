import { screen } from '@testing-library/react';
import { HttpResponse } from 'msw';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { adminSession, card, financeSession, limitImpact } from '../../../test/fixtures';
import { renderApp } from '../../../test/render-app';
import { apiError, serve, server } from '../../../test/server';

function serveCards() {
  server.use(
    serve('cards.get', ({ params }) =>
      params.id === 'card_1'
        ? HttpResponse.json(card())
        : apiError(404, 'not_found', 'No such card.'),
    ),
    serve('cards.list', () => HttpResponse.json({ items: [card()] })),
    serve('cards.limitImpact', () => HttpResponse.json(limitImpact())),
  );
}

afterEach(() => vi.restoreAllMocks());

describe('card detail: links and dead ends', () => {
  it('"← All cards" returns to the list with the filters it was opened from', async () => {
    serveCards();
    const { user, router } = renderApp('/cards?status=active&sort=name&direction=desc', {
      session: financeSession(),
    });
    await user.click(await screen.findByRole('link', { name: 'Travel card' }));
    await screen.findByRole('heading', { level: 1, name: 'Travel card' });
    await user.click(screen.getByRole('link', { name: '← All cards' }));
    await screen.findByRole('heading', { level: 1, name: 'Cards' });
    expect(router.state.location.pathname).toBe('/cards');
    expect(router.state.location.search).toEqual({
      status: 'active',
      sort: 'name',
      direction: 'desc',
    });
  });

  it('a card opened from elsewhere goes back to the plain list', async () => {
    serveCards();
    renderApp('/cards/card_1', { session: financeSession() });
    expect(await screen.findByRole('link', { name: '← All cards' })).toHaveAttribute(
      'href',
      '/cards',
    );
  });

  it('links to the transactions paid with this card', async () => {
    serveCards();
    renderApp('/cards/card_1', { session: financeSession() });
    expect(await screen.findByRole('link', { name: 'Transactions on this card' })).toHaveAttribute(
      'href',
      '/transactions?cardId=card_1',
    );
  });

  it('an unknown card says "Card not found" with the way back to the list it came from, and logs no error', async () => {
    serveCards();
    const logged = vi.spyOn(console, 'error');
    const { user, router } = renderApp('/cards/nope?status=paused', {
      session: financeSession(),
    });
    expect(
      await screen.findByRole('heading', { level: 1, name: 'Card not found' }),
    ).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Retry' })).not.toBeInTheDocument();
    expect(document.title).toBe('Card not found · Card Console');
    expect(logged).not.toHaveBeenCalled();

    await user.click(screen.getByRole('link', { name: '← Back to Cards' }));
    await screen.findByRole('heading', { level: 1, name: 'Cards' });
    expect(router.state.location.search).toEqual({ status: 'paused' });
  });

  it('another failure still shows the error with its request id and a Retry', async () => {
    server.use(serve('cards.get', () => apiError(502, 'upstream_error', 'It broke.')));
    renderApp('/cards/card_1', { session: financeSession() });
    expect(await screen.findByText('It broke.')).toBeInTheDocument();
    expect(screen.getByText('req-upstream_error')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Retry' })).toBeInTheDocument();
  });

  it('a very large new maximum gets a warning while typing and on the review, like $0 does', async () => {
    serveCards();
    const { user } = renderApp('/cards/card_1', { session: adminSession() });
    await user.click(await screen.findByRole('button', { name: 'Edit name and limits' }));
    const max = screen.getByLabelText('Maximum per transaction (USD)');
    await user.clear(max);
    await user.type(max, '49999.99');
    expect(screen.queryByRole('note')).not.toBeInTheDocument();
    await user.type(max, '{Backspace>8}75000');
    expect(screen.getByRole('note')).toHaveTextContent(
      'A $75,000.00 maximum per purchase is very high ($50,000.00 or more): check the amount.',
    );
    await user.click(screen.getByRole('button', { name: 'Review changes' }));
    const review = screen.getByRole('region', { name: 'Confirm changes' });
    expect(review).toHaveTextContent('Maximum per transaction: $500.00 → $75,000.00');
    expect(review).toHaveTextContent('very high ($50,000.00 or more)');
  });
});
