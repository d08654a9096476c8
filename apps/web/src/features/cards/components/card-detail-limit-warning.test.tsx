import { screen } from '@testing-library/react';
import { HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { adminSession, card, limitImpact } from '../../../test/fixtures';
import { renderApp } from '../../../test/render-app';
import { serve, server } from '../../../test/server';

describe("card editor: a large maximum is the deployment's to define", () => {
  it('warns at the threshold the session carries, not at the default', async () => {
    server.use(
      serve('cards.get', () => HttpResponse.json(card())),
      serve('cards.limitImpact', () => HttpResponse.json(limitImpact())),
    );
    const { user } = renderApp('/cards/card_1', {
      session: adminSession({ largeMaximumCents: 10_000_00 }),
    });
    await user.click(await screen.findByRole('button', { name: 'Edit name and limits' }));
    const max = screen.getByLabelText('Maximum per transaction (USD)');
    await user.clear(max);
    await user.type(max, '9000');
    expect(screen.queryByRole('note')).not.toBeInTheDocument();
    await user.clear(max);
    await user.type(max, '12000');
    expect(screen.getByRole('note')).toHaveTextContent(
      'A $12,000.00 maximum per purchase is very high ($10,000.00 or more): check the amount.',
    );
    await user.click(screen.getByRole('button', { name: 'Review changes' }));
    const review = screen.getByRole('region', { name: 'Confirm changes' });
    expect(review).toHaveTextContent('Maximum per transaction: $500.00 → $12,000.00');
    expect(review).toHaveTextContent('very high ($10,000.00 or more)');
  });

  it('says nothing below a higher threshold that the default would have warned about', async () => {
    server.use(
      serve('cards.get', () => HttpResponse.json(card())),
      serve('cards.limitImpact', () => HttpResponse.json(limitImpact())),
    );
    const { user } = renderApp('/cards/card_1', {
      session: adminSession({ largeMaximumCents: 250_000_00 }),
    });
    await user.click(await screen.findByRole('button', { name: 'Edit name and limits' }));
    const max = screen.getByLabelText('Maximum per transaction (USD)');
    await user.clear(max);
    await user.type(max, '75000');
    expect(screen.queryByRole('note')).not.toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Review changes' }));
    const review = screen.getByRole('region', { name: 'Confirm changes' });
    expect(review).toHaveTextContent('Maximum per transaction: $500.00 → $75,000.00');
    expect(review).not.toHaveTextContent('very high');
  });
});
