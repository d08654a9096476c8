// Card owners and teams (issue 49, decision 0126): the list of owners and teams given, and an
// admin's change of one card's, audited in the change's transaction (`card.owner`). The card must
// be one the card service has (a 404 otherwise, audited as refused); its name stays the
// service's.
import type {
  CardOwnerList,
  CardOwnership,
  CardOwnershipChange,
} from '@card-console/shared/api/card-owners';
import type { Card } from '@card-console/shared/api/cards';
import { AppError } from '../../core/app-error';
import { auditedChange } from '../../platform/audit/audited-change';
import { holdsCardNumber } from '../../platform/security/card-number-ids';
import type { Who } from '../../platform/sessions/who';
import { StoreUnavailableError } from '../../platform/store-unavailable';
import type { FeatureDeps } from '../feature-deps';
import type { CardOwnersStore } from './card-owners-store';

export interface CardOwnerStores {
  cardOwners(): Promise<CardOwnersStore>;
}

export interface CardOwnersDeps
  extends Pick<FeatureDeps, 'upstream' | 'audit' | 'clock' | 'logger'> {
  stores: CardOwnerStores;
}

/** An owner as the audit trail shows it: `Name <email>`, or the name alone. */
const ownerText = (o: CardOwnership | undefined) =>
  o?.owner && (o.owner.email ? `${o.owner.name} <${o.owner.email}>` : o.owner.name);

const snapshot = (o: CardOwnership | undefined) => {
  const owner = ownerText(o);
  return {
    ...(owner ? { owner } : {}),
    ...(o?.team ? { team: o.team } : {}),
  };
};

export function createCardOwnersService(deps: CardOwnersDeps) {
  return {
    async list(): Promise<CardOwnerList> {
      return (await deps.stores.cardOwners()).list();
    },

    /** The cards of the owner and the team asked for (`CardOwnersStore.cardsOf`). */
    async cardsOf(filter: { owner?: string | undefined; team?: string | undefined }) {
      return (await deps.stores.cardOwners()).cardsOf(filter);
    },

    /**
     * The cards, each with its owner and team (Card Console's) when it has either. With the
     * database out of reach the cards are still read (the card service's), marked
     * `ownershipUnavailable`: a brief outage stops no card read, and no card is said to have no
     * owner it may have.
     */
    async withOwnership<C extends Card>(cards: C[]): Promise<C[]> {
      if (cards.length === 0) return cards;
      try {
        return await (await deps.stores.cardOwners()).withOwnership(cards);
      } catch (error) {
        if (!(error instanceof StoreUnavailableError)) throw error;
        deps.logger.warn(
          { err: error },
          'cards read without their owners: the database is out of reach',
        );
        return cards.map((card) => ({ ...card, ownershipUnavailable: true as const }));
      }
    },

    async set(who: Who, cardId: string, change: CardOwnershipChange): Promise<CardOwnership> {
      // Refused before anything is read or recorded (the trail refuses a card number, which
      // would answer as if it were down).
      const typed = [change.owner?.name, change.owner?.email, change.team ?? undefined];
      if (typed.some((text) => text !== undefined && holdsCardNumber(text))) {
        throw new AppError(
          400,
          'invalid_body',
          "An owner's name or email, or a team, must not hold a card number. Remove it and try again.",
        );
      }
      const base = {
        actor: who.actor.email,
        role: who.actor.role,
        action: 'card.owner',
        cardId,
        target: cardId,
        requestId: who.requestId,
      } as const;
      const wanted = {
        owner: change.owner && {
          name: change.owner.name,
          ...(change.owner.email === undefined ? {} : { email: change.owner.email }),
        },
        team: change.team,
      };
      try {
        await deps.upstream.getCard(
          { requestId: who.requestId, trace: who.trace, role: who.actor.role },
          cardId,
        );
      } catch (error) {
        // A card the service does not have: refused, and audited as such.
        if (error instanceof AppError && error.status === 404) {
          await deps.audit.append({ ...base, outcome: 'failed', detail: 'not_found' });
        }
        throw error;
      }
      const store = await deps.stores.cardOwners();
      const done = await auditedChange(
        deps,
        (audited) =>
          store.set(cardId, wanted, who.actor.email, new Date(deps.clock.now()), audited),
        // Nothing to take off, or the owner and team given as they are, is no change: the store
        // commits nothing and nothing is recorded (the answer is the card's ownership as it is).
        ({ before, after }) => [
          { ...base, outcome: 'success', before: snapshot(before), after: snapshot(after) },
        ],
      );
      return done.after ?? { cardId };
    },
  };
}

export type CardOwnersService = ReturnType<typeof createCardOwnersService>;
