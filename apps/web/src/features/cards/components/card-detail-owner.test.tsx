import {
  type CardOwnership,
  cardOwnershipChangeSchema,
} from '@card-console/shared/api/card-owners';
import type { Card } from '@card-console/shared/api/cards';
import type { PeopleList } from '@card-console/shared/api/people';
import { screen, waitFor, within } from '@testing-library/react';
import { HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { adminSession, card, financeSession } from '../../../test/fixtures';
import { renderApp } from '../../../test/render-app';
import { apiError, requestsTo, serve, server } from '../../../test/server';

const owned = card({
  owner: { name: 'Elena Walsh', email: 'elena@example.test', person: true },
  team: 'Sales',
});

const people: PeopleList = {
  people: [
    {
      email: 'elena@example.test',
      role: 'finance',
      disabled: false,
      source: 'invited',
      pending: false,
      hasTotp: false,
      createdAt: '2026-01-01T00:00:00.000Z',
      activeSessions: 0,
      you: false,
    },
    {
      email: 'gone@example.test',
      role: 'finance',
      disabled: true,
      source: 'invited',
      pending: false,
      hasTotp: false,
      createdAt: '2026-01-01T00:00:00.000Z',
      activeSessions: 0,
      you: false,
    },
  ],
  invitations: [],
};

/**
 * A card, its list and the owners' directory, and the owner endpoint as the BFF keeps it: the
 * change checked with its schema, the card given the owner and team it names (a person's email
 * marked as such), or `refuse` answered instead.
 */
function serveOwnedCard(initial: Card, options: { refuse?: string } = {}) {
  let current = initial;
  const bodies: unknown[] = [];
  server.use(
    serve('cards.get', () => HttpResponse.json(current)),
    serve('cards.list', () => HttpResponse.json({ items: [current] })),
    serve('people.list', () => HttpResponse.json(people)),
    serve('cards.owners', () =>
      HttpResponse.json({
        owners: [{ name: 'Elena Walsh', email: 'elena@example.test', person: true, cards: 2 }],
        teams: [
          { name: 'Sales', cards: 2 },
          { name: 'Field ops', cards: 1 },
        ],
      }),
    ),
    serve('cards.setOwner', async ({ request, params }) => {
      const body = cardOwnershipChangeSchema.parse(await request.json());
      bodies.push(body);
      if (options.refuse) return apiError(400, 'invalid_body', options.refuse);
      const { owner: _o, team: _t, ...rest } = current;
      current = {
        ...rest,
        ...(body.owner
          ? {
              owner: {
                ...body.owner,
                ...(body.owner.email === 'elena@example.test' ? { person: true } : {}),
              },
            }
          : {}),
        ...(body.team ? { team: body.team } : {}),
      };
      const answer: CardOwnership = {
        cardId: String(params.id),
        ...(current.owner ? { owner: current.owner } : {}),
        ...(current.team ? { team: current.team } : {}),
        updatedBy: 'admin@example.test',
        updatedAt: '2026-03-06T09:00:00.000Z',
      };
      return HttpResponse.json(answer);
    }),
  );
  return bodies;
}

const ownerPanel = () =>
  within(screen.getByRole('region', { name: 'Owner and team' }) as HTMLElement);

describe("a card's owner and team", () => {
  it('finance reads the owner, their email, that they sign in, and the team, and changes nothing', async () => {
    serveOwnedCard(owned);
    renderApp('/cards/card_1', { session: financeSession() });
    await screen.findByRole('heading', { level: 1, name: 'Travel card' });
    const panel = ownerPanel();
    expect(panel.getByText('Elena Walsh')).toBeInTheDocument();
    expect(panel.getByText('elena@example.test · signs in')).toBeInTheDocument();
    expect(panel.getByText('Sales')).toBeInTheDocument();
    expect(panel.queryByRole('button')).toBeNull();
    // Nothing of the form's suggestions is asked for by one who cannot change them.
    expect(requestsTo('/api/people')).toHaveLength(0);
  });

  it('says "No owner" and "No team" for a card given neither', async () => {
    serveOwnedCard(card());
    renderApp('/cards/card_1', { session: financeSession() });
    await screen.findByRole('heading', { level: 1, name: 'Travel card' });
    expect(ownerPanel().getByText('No owner')).toBeInTheDocument();
    expect(ownerPanel().getByText('No team')).toBeInTheDocument();
  });

  it('an admin gives an owner and a team, suggested from People and the teams given; the card, the list and the directory are read again', async () => {
    const bodies = serveOwnedCard(card());
    const { user } = renderApp('/cards', { session: adminSession() });
    await user.click(await screen.findByRole('link', { name: 'Travel card' }));
    await user.click(await screen.findByRole('button', { name: 'Give an owner and team' }));
    const panel = ownerPanel();
    const name = panel.getByLabelText("Owner's name");
    expect(name).toHaveFocus();
    const email = panel.getByLabelText("Owner's email (optional)");
    const team = panel.getByLabelText('Team');
    // People who sign in (not a disabled one), and the owners and teams already given.
    const suggested = (input: HTMLElement) =>
      [
        ...(document.getElementById(input.getAttribute('list') ?? '')?.querySelectorAll('option') ??
          []),
      ].map((o) => o.value);
    await waitFor(() => expect(suggested(email)).toEqual(['elena@example.test']));
    expect(suggested(team)).toEqual(['Sales', 'Field ops']);
    expect(suggested(name)).toEqual(['Elena Walsh']);

    await user.type(name, '  Elena Walsh ');
    await user.type(email, 'Elena@Example.test');
    await user.type(team, 'Field ops');
    const cardReads = requestsTo('/api/cards/card_1').length;
    const directoryReads = requestsTo('/api/card-owners').length;
    await user.click(panel.getByRole('button', { name: 'Save' }));

    expect(await panel.findByText('Owner and team saved.')).toBeInTheDocument();
    // Trimmed, the email as People writes it.
    expect(bodies).toEqual([
      { owner: { name: 'Elena Walsh', email: 'elena@example.test' }, team: 'Field ops' },
    ]);
    expect(panel.getByText('elena@example.test · signs in')).toBeInTheDocument();
    expect(panel.getByText('Field ops')).toBeInTheDocument();
    expect(panel.getByRole('button', { name: 'Change owner and team' })).toHaveFocus();
    expect(requestsTo('/api/cards/card_1').length).toBeGreaterThan(cardReads);
    expect(requestsTo('/api/card-owners').length).toBeGreaterThan(directoryReads);

    // The list it came from shows the new owner, read again.
    const listReads = requestsTo('/api/cards').length;
    await user.click(screen.getByRole('link', { name: '← All cards' }));
    const row = await screen.findByRole('row', { name: /Travel card/ });
    await waitFor(() => expect(within(row).getByText('Elena Walsh')).toBeInTheDocument());
    expect(requestsTo('/api/cards').length).toBeGreaterThan(listReads);
  });

  it('an admin takes the owner and the team off at once', async () => {
    const bodies = serveOwnedCard(owned);
    const { user } = renderApp('/cards/card_1', { session: adminSession() });
    await user.click(await screen.findByRole('button', { name: 'Change owner and team' }));
    await user.click(ownerPanel().getByRole('button', { name: 'Take owner and team off' }));
    expect(await ownerPanel().findByText('Owner and team taken off.')).toBeInTheDocument();
    expect(bodies).toEqual([{ owner: null, team: null }]);
    expect(ownerPanel().getByText('No owner')).toBeInTheDocument();
    expect(ownerPanel().getByText('No team')).toBeInTheDocument();
  });

  it('says what to fix before sending anything: an email without a name, an address that is none, a blank change', async () => {
    const bodies = serveOwnedCard(card());
    const { user } = renderApp('/cards/card_1', { session: adminSession() });
    await user.click(await screen.findByRole('button', { name: 'Give an owner and team' }));
    const panel = ownerPanel();
    await user.click(panel.getByRole('button', { name: 'Save' }));
    expect(panel.getByRole('alert')).toHaveTextContent('Nothing has changed.');

    await user.type(panel.getByLabelText("Owner's email (optional)"), 'not-an-address');
    await user.click(panel.getByRole('button', { name: 'Save' }));
    const name = panel.getByLabelText("Owner's name");
    expect(name).toHaveAttribute('aria-invalid', 'true');
    expect(name).toHaveAccessibleDescription(
      "Enter the owner's name too, or clear the email: an email alone is no owner.",
    );
    expect(name).toHaveFocus();
    expect(panel.getByLabelText("Owner's email (optional)")).toHaveAccessibleDescription(
      expect.stringContaining('Enter an email address, such as name@example.com.'),
    );
    await user.type(panel.getByLabelText('Team'), '\u202Eevil');
    await user.click(panel.getByRole('button', { name: 'Save' }));
    expect(panel.getByLabelText('Team')).toHaveAccessibleDescription(
      'Remove the invisible text-direction characters; they make a name show differently from what it is.',
    );
    expect(bodies).toEqual([]);
  });

  it('a change the server refuses shows its reason, and what was typed stays', async () => {
    const bodies = serveOwnedCard(card(), {
      refuse: 'owner.email must be an email address',
    });
    const { user } = renderApp('/cards/card_1', { session: adminSession() });
    await user.click(await screen.findByRole('button', { name: 'Give an owner and team' }));
    const panel = ownerPanel();
    await user.type(panel.getByLabelText("Owner's name"), 'Sam Lee');
    await user.type(panel.getByLabelText("Owner's email (optional)"), 'sam@example.test');
    await user.type(panel.getByLabelText('Team'), 'Field ops');
    await user.click(panel.getByRole('button', { name: 'Save' }));
    expect(await panel.findByRole('alert')).toHaveTextContent(
      'Not saved: owner.email must be an email address',
    );
    expect(bodies).toHaveLength(1);
    expect(panel.getByLabelText("Owner's name")).toHaveValue('Sam Lee');
    expect(panel.getByLabelText("Owner's email (optional)")).toHaveValue('sam@example.test');
    expect(panel.getByLabelText('Team')).toHaveValue('Field ops');
    expect(panel.getByRole('button', { name: 'Save' })).toBeEnabled();
  });

  it('the directory of owners and teams is asked for by the form only, not by every card page', async () => {
    serveOwnedCard(owned);
    renderApp('/cards/card_1', { session: adminSession() });
    await screen.findByRole('button', { name: 'Change owner and team' });
    expect(requestsTo('/api/card-owners')).toHaveLength(0);
    expect(requestsTo('/api/people')).toHaveLength(0);
  });
});
