import { revealBodySchema } from '@card-console/shared/api/cards';
import { defineFeature } from '../../core/endpoint';
import { parseBody } from '../../core/validate';
import { who } from '../../platform/sessions/who';
import { type IndexSearchDeps, indexSearchOf } from '../transaction-index';
import { type CardOwnerStores, createCardOwnersService } from './card-owners-service';
import { cardRefusals } from './card-refusals';
import { createCardsService } from './cards-service';
import { createLimitImpactService } from './limit-impact-service';
import { createRevealService } from './reveal-service';
import { createUpdateCardService } from './update-card-service';

/** The reason as typed, for the audit of a refused reveal (bounded; never trusted further). */
function claimedReason(body: unknown): string | undefined {
  const reason = (body as { reason?: unknown } | undefined)?.reason;
  return typeof reason === 'string' && reason.trim() ? reason.trim().slice(0, 500) : undefined;
}

export const cardsFeature = defineFeature(
  'cards',
  // The index gives the list's money (a sort by spend reads the figures the rows show).
  (deps: IndexSearchDeps & { stores: CardOwnerStores }) => {
    const owners = createCardOwnersService(deps);
    return {
      cards: createCardsService({
        ...deps,
        cardsMoney: (who, cardIds) => indexSearchOf(deps).cardsMoney(who, cardIds),
        owners,
      }),
      owners,
      reveals: createRevealService(deps),
      updates: createUpdateCardService(deps),
      impacts: createLimitImpactService(deps),
      stepUp: deps.stepUp,
    };
  },
  (endpoint) => [
    endpoint('cards.list', {
      summary:
        'A page of cards, filtered, searched by name or last four, sorted (by spend and utilisation from the index)',
      example: '/api/cards',
      handler: ({ req, services, query }) => services.cards.list(who(req), query),
    }),
    endpoint('cards.owners', {
      summary: 'Every owner and team given to cards, with how many cards each has',
      example: '/api/card-owners',
      handler: ({ services }) => services.owners.list(),
    }),
    endpoint('cards.setOwner', {
      summary:
        "Give a card an owner (a name, and an email for alerts) and a team, or take them off: Card Console's, not the card service's",
      attempted: 'card.owner',
      refusals: { action: 'card.owner', cardId: cardRefusals.read.cardId },
      example: '/api/cards/{cardId}/owner',
      handler: ({ req, services, params, body }) => services.owners.set(who(req), params.id, body),
    }),
    endpoint('cards.get', {
      summary: 'One card',
      refusals: cardRefusals.read,
      example: '/api/cards/{cardId}',
      handler: ({ req, services, params }) => services.cards.get(who(req), params.id),
    }),
    endpoint('cards.update', {
      summary: "Change a card's name or limits, refused with the current values if it changed",
      attempted: 'card.update',
      refusals: cardRefusals.update,
      example: '/api/cards/{cardId}',
      handler: ({ req, services, params, body }) =>
        services.updates.update(who(req), params.id, body),
    }),
    endpoint('cards.limitImpact', {
      summary:
        'What proposed limits would have refused of the card’s recent charges, beside its current ones',
      attempted: 'card.limitImpact',
      refusals: cardRefusals.read,
      example: '/api/cards/{cardId}/limit-impact?maximumCents=10000',
      handler: ({ req, services, params, query }) =>
        services.impacts.preview(who(req), params.id, query),
    }),
    endpoint('cards.reveal', {
      summary: "The card's full number and security code, with a reason and a second factor",
      attempted: 'card.reveal',
      refusals: cardRefusals.reveal,
      example: '/api/cards/{cardId}/reveal',
      // A refused reveal is audited with the reason as typed, whatever else was wrong.
      handlerChecksBody: true,
      handler: async ({ req, res, services, params }) => {
        const person = who(req);
        let reason: string;
        try {
          const body = parseBody(revealBodySchema, req);
          reason = body.reason;
          await services.stepUp.require(req, res, { totp: body.totp, passkey: body.passkey });
        } catch (error) {
          await services.reveals.recordDenied(person, params.id, claimedReason(req.body), error);
          throw error;
        }
        return services.reveals.reveal(person, params.id, reason);
      },
    }),
  ],
);
