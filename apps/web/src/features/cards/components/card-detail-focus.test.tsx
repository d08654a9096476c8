import { type Card, type RevealResponse, revealBodySchema } from '@card-console/shared/api/cards';
import { screen, waitFor, within } from '@testing-library/react';
import { HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { fakeCvv, fakePan } from '../../../test/fake-secrets';
import { adminSession, card } from '../../../test/fixtures';
import { renderApp } from '../../../test/render-app';
import { serve, server } from '../../../test/server';

function serveCard(initial: Card = card()) {
  let current = initial;
  server.use(
    serve('cards.get', () => HttpResponse.json(current)),
    serve('cards.update', async ({ request }) => {
      const body = (await request.json()) as { name?: string };
      current = { ...current, name: body.name ?? current.name };
      return HttpResponse.json(current);
    }),
    serve('cards.reveal', async ({ request, params }) => {
      revealBodySchema.parse(await request.json());
      const answer: RevealResponse = {
        cardId: String(params.id),
        last4: '4242',
        pan: fakePan('4242'),
        cvv: fakeCvv(),
      };
      return HttpResponse.json(answer);
    }),
  );
}

async function openEditor() {
  serveCard();
  const view = renderApp('/cards/card_1', { session: adminSession() });
  const edit = await screen.findByRole('button', { name: 'Edit name and limits' });
  await view.user.click(edit);
  return view;
}

describe('card detail: focus and keyboard', () => {
  it('after a reveal, focus is on the revealed values; after "Hide now", on "Reveal card details"', async () => {
    serveCard();
    const { user } = renderApp('/cards/card_1', { session: adminSession() });
    await user.click(await screen.findByRole('button', { name: 'Reveal card details' }));
    await user.type(screen.getByLabelText('Reason'), 'Vendor setup');
    await user.click(screen.getByRole('button', { name: 'Reveal' }));
    await screen.findByRole('button', { name: 'Hide now' });
    const values = screen.getByRole('region', { name: 'Card number, expiry and security code' });
    // Focus moves in an effect, which React runs after the values are drawn: a loaded CI
    // machine checked in between (the values shown, focus not yet there).
    await waitFor(() => expect(values).toHaveFocus());
    expect(within(values).getByTestId('pan')).not.toHaveTextContent('••••');

    await user.click(screen.getByRole('button', { name: 'Hide now' }));
    await waitFor(() =>
      expect(screen.getByRole('button', { name: 'Reveal card details' })).toHaveFocus(),
    );
  });

  it('a cancelled reveal returns focus to "Reveal card details"', async () => {
    serveCard();
    const { user } = renderApp('/cards/card_1', { session: adminSession() });
    await user.click(await screen.findByRole('button', { name: 'Reveal card details' }));
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Reveal card details' })).toHaveFocus();
  });

  it('"Edit name and limits" puts focus in the first field; a wrong value, on that field', async () => {
    const { user } = await openEditor();
    expect(screen.getByLabelText('Name')).toHaveFocus();
    const max = screen.getByLabelText('Maximum per transaction (USD)');
    await user.clear(max);
    await user.type(max, 'lots');
    await user.click(screen.getByRole('button', { name: 'Review changes' }));
    expect(max).toHaveAttribute('aria-invalid', 'true');
    expect(max).toHaveFocus();
  });

  it('"Review changes" puts focus on the summary; "Back to editing" on the first field', async () => {
    const { user } = await openEditor();
    await user.type(screen.getByLabelText('Name'), ' EU');
    await user.click(screen.getByRole('button', { name: 'Review changes' }));
    expect(screen.getByRole('heading', { name: 'Confirm changes' })).toHaveFocus();
    await user.click(screen.getByRole('button', { name: 'Back to editing' }));
    expect(screen.getByLabelText('Name')).toHaveFocus();
    expect(screen.getByLabelText('Name')).toHaveValue('Travel card EU');
  });

  it('after saving, focus returns to "Edit name and limits"', async () => {
    const { user } = await openEditor();
    await user.type(screen.getByLabelText('Name'), ' EU');
    await user.click(screen.getByRole('button', { name: 'Review changes' }));
    await user.click(screen.getByRole('button', { name: 'Confirm changes' }));
    expect(await screen.findByText('Card updated.')).toBeInTheDocument();
    expect(screen.getByRole('heading', { level: 1, name: 'Travel card EU' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Edit name and limits' })).toHaveFocus();
  });

  it('Cancel returns focus to "Edit name and limits"', async () => {
    const { user } = await openEditor();
    await user.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByLabelText('Name')).not.toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Edit name and limits' })).toHaveFocus();
  });

  it('Escape in a field cancels the editor, unsaved, and returns focus', async () => {
    const { user } = await openEditor();
    await user.type(screen.getByLabelText('Name'), ' EU');
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('form', { name: 'Edit card' })).not.toBeInTheDocument();
    expect(screen.queryByLabelText('Name')).not.toBeInTheDocument();
    expect(screen.getByRole('heading', { level: 1, name: 'Travel card' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Edit name and limits' })).toHaveFocus();
  });

  it('Escape on the review cancels it too', async () => {
    const { user } = await openEditor();
    await user.type(screen.getByLabelText('Name'), ' EU');
    await user.click(screen.getByRole('button', { name: 'Review changes' }));
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('region', { name: 'Confirm changes' })).not.toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Edit name and limits' })).toHaveFocus();
  });
});
