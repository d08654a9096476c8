// The cards' owners and teams for the web tests: the directory the BFF answers (GET
// /api/card-owners), made from the cards given, as the BFF keeps it: owners and teams matched by
// their names in any case and spacing, the first spelling given shown, with their cards counted.
import { type CardOwnerList, ownershipKeyOf } from '@card-console/shared/api/card-owners';
import type { Card } from '@card-console/shared/api/cards';
import { HttpResponse } from 'msw';
import { serve, server } from './server';

export function cardOwnerListOf(cards: readonly Card[]): CardOwnerList {
  const owners = new Map<string, CardOwnerList['owners'][number]>();
  const teams = new Map<string, CardOwnerList['teams'][number]>();
  for (const card of cards) {
    if (card.owner) {
      const key = ownershipKeyOf(card.owner.name);
      const known = owners.get(key);
      if (known) known.cards++;
      else owners.set(key, { ...card.owner, cards: 1 });
    }
    if (card.team !== undefined) {
      const key = ownershipKeyOf(card.team);
      const known = teams.get(key);
      if (known) known.cards++;
      else teams.set(key, { name: card.team, cards: 1 });
    }
  }
  const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name);
  return { owners: [...owners.values()].sort(byName), teams: [...teams.values()].sort(byName) };
}

/** Serves the directory of these cards' owners and teams. */
export function serveCardOwners(cards: readonly Card[]) {
  server.use(serve('cards.owners', () => HttpResponse.json(cardOwnerListOf(cards))));
}
