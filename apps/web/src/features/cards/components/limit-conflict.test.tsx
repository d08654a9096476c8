import { type Card, type CardValues, cardPatchBodySchema } from '@card-console/shared/api/cards';
import { screen, within } from '@testing-library/react';
import type { UserEvent } from '@testing-library/user-event';
import { HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { adminSession, card, limitImpact } from '../../../test/fixtures';
import { renderApp } from '../../../test/render-app';
import { apiError, requestsTo, serve, server } from '../../../test/server';

/**
 * A card service where someone else saves `theirs` just before this person's first save: that
 * save gets 409 card_changed with the current values; later saves are checked against them.
 */
function serveEditedMeanwhile(theirs: CardValues) {
  let current: Card = card();
  const patches: unknown[] = [];
  const valuesOf = (c: Card): CardValues => ({
    name: c.name,
    minimumCents: c.transactionSizeLimit.minimumCents ?? null,
    maximumCents: c.transactionSizeLimit.maximumCents ?? null,
  });
  server.use(
    serve('cards.get', () => HttpResponse.json(current)),
    serve('cards.limitImpact', () => HttpResponse.json(limitImpact())),
    serve('cards.update', async ({ request }) => {
      const body = cardPatchBodySchema.parse(await request.json());
      patches.push(body);
      if (patches.length === 1) {
        current = card({
          name: theirs.name,
          transactionSizeLimit: {
            ...(theirs.minimumCents === null ? {} : { minimumCents: theirs.minimumCents }),
            ...(theirs.maximumCents === null ? {} : { maximumCents: theirs.maximumCents }),
          },
        });
      }
      const now = valuesOf(current);
      const stale = Object.entries(body.expected ?? {}).some(
        ([field, value]) => now[field as keyof CardValues] !== value,
      );
      if (stale) {
        return apiError(409, 'card_changed', 'Someone else changed this card.', { current: now });
      }
      current = card({
        name: body.name ?? current.name,
        transactionSizeLimit: { ...current.transactionSizeLimit, ...body.transactionSizeLimit },
      });
      return HttpResponse.json(current);
    }),
  );
  return { patches };
}

async function changeMaximum(user: UserEvent, dollars: string) {
  await user.click(await screen.findByRole('button', { name: 'Edit name and limits' }));
  const max = screen.getByLabelText('Maximum per transaction (USD)');
  await user.clear(max);
  await user.type(max, dollars);
  await user.click(screen.getByRole('button', { name: 'Review changes' }));
  await user.click(screen.getByRole('button', { name: 'Confirm changes' }));
}

const rowOf = (label: string) => {
  const table = screen.getByRole('table', { name: "The card's values and your change" });
  const header = within(table).getByRole('rowheader', { name: label });
  const row = header.closest('tr');
  if (!row) throw new Error(`no row ${label}`);
  return within(row)
    .getAllByRole('cell')
    .map((cell) => cell.textContent);
};

describe('editing a card someone else changed meanwhile', () => {
  it('says so, shows the current values beside the change, and re-applies the change on top of them', async () => {
    const { patches } = serveEditedMeanwhile({
      name: 'Travel card',
      minimumCents: 500,
      maximumCents: 80_000,
    });
    const { user } = renderApp('/cards/card_1', { session: adminSession() });
    await changeMaximum(user, '250');

    const heading = await screen.findByRole('heading', { name: 'Someone else changed this card' });
    expect(heading).toHaveFocus();
    expect(screen.getByRole('alert')).toHaveTextContent(
      'someone else saved a change to this card, so your change was not saved',
    );
    expect(rowOf('Name')).toEqual(['Travel card', 'not changed']);
    expect(rowOf('Minimum')).toEqual(['$5.00 changedyou saw $1.00', 'not changed']);
    expect(rowOf('Maximum')).toEqual(['$800.00 changedyou saw $500.00', '$250.00']);
    // The card on screen shows what is on it now, without a reload.
    const limits = screen.getByRole('heading', { name: 'Spending constraint' }).parentElement;
    expect(limits).toHaveTextContent('Minimum$5.00Maximum$800.00');
    const reads = requestsTo('/api/cards/card_1').length;

    await user.click(screen.getByRole('button', { name: 'Apply my change to the current values' }));
    expect(await screen.findByText('Card updated.')).toBeInTheDocument();
    expect(patches).toEqual([
      {
        transactionSizeLimit: { maximumCents: 25_000 },
        expected: { minimumCents: 100, maximumCents: 50_000 },
      },
      {
        transactionSizeLimit: { maximumCents: 25_000 },
        expected: { minimumCents: 500, maximumCents: 80_000 },
      },
    ]);
    expect(limits).toHaveTextContent('Minimum$5.00Maximum$250.00');
    expect(requestsTo('/api/cards/card_1')).toHaveLength(reads);
  });

  it('when the change no longer fits the current values, goes back to editing with the reason and sends nothing', async () => {
    const { patches } = serveEditedMeanwhile({
      name: 'Travel card',
      minimumCents: 30_000,
      maximumCents: 50_000,
    });
    const { user } = renderApp('/cards/card_1', { session: adminSession() });
    await changeMaximum(user, '250');
    await screen.findByRole('heading', { name: 'Someone else changed this card' });

    await user.click(screen.getByRole('button', { name: 'Apply my change to the current values' }));
    expect(screen.getByText('The minimum must not be above the maximum.')).toBeInTheDocument();
    expect(screen.getByLabelText('Minimum per transaction (USD)')).toHaveValue('300.00');
    expect(screen.getByLabelText('Maximum per transaction (USD)')).toHaveValue('250.00');
    expect(patches).toHaveLength(1);
  });

  it('"Edit again" starts from the current values with the change laid over them', async () => {
    const { patches } = serveEditedMeanwhile({
      name: 'Team travel',
      minimumCents: 200,
      maximumCents: 50_000,
    });
    const { user } = renderApp('/cards/card_1', { session: adminSession() });
    await changeMaximum(user, '250');
    await screen.findByRole('heading', { name: 'Someone else changed this card' });
    expect(rowOf('Name')).toEqual(['Team travel changedyou saw Travel card', 'not changed']);

    await user.click(screen.getByRole('button', { name: 'Edit again' }));
    expect(screen.getByLabelText('Name')).toHaveValue('Team travel');
    expect(screen.getByLabelText('Minimum per transaction (USD)')).toHaveValue('2.00');
    expect(screen.getByLabelText('Maximum per transaction (USD)')).toHaveValue('250.00');
    await user.click(screen.getByRole('button', { name: 'Review changes' }));
    expect(screen.getByRole('region', { name: 'Confirm changes' })).toHaveTextContent(
      'Maximum per transaction: $500.00 → $250.00',
    );
    await user.click(screen.getByRole('button', { name: 'Confirm changes' }));
    expect(await screen.findByText('Card updated.')).toBeInTheDocument();
    expect(patches.at(-1)).toEqual({
      transactionSizeLimit: { maximumCents: 25_000 },
      expected: { minimumCents: 200, maximumCents: 50_000 },
    });
    expect(screen.getByRole('heading', { name: 'Team travel', level: 1 })).toBeInTheDocument();
  });

  it('a rename by someone else does not block a limit change: the limits it replaces are still as shown', async () => {
    const { patches } = serveEditedMeanwhile({
      name: 'Team travel',
      minimumCents: 100,
      maximumCents: 50_000,
    });
    const { user } = renderApp('/cards/card_1', { session: adminSession() });
    await changeMaximum(user, '250');
    expect(await screen.findByText('Card updated.')).toBeInTheDocument();
    expect(patches).toHaveLength(1);
    expect(screen.getByRole('heading', { name: 'Team travel', level: 1 })).toBeInTheDocument();
  });
});
