import type { Card, CardPage } from '@card-console/shared/api/cards';
import type { CardsMoney, CardUtilization } from '@card-console/shared/api/transaction-index';
import type { CardListSort } from '@card-console/shared/index-vocabulary';
import { AppError } from '../../core/app-error';
import type { Who } from '../../platform/sessions/who';
import type { FeatureDeps } from '../feature-deps';
import {
  cardsMatching,
  directoryPage,
  directoryPosition,
  orderCards,
  serviceSort,
} from './card-listing';
import { toApiCard } from './card-mapper';
import type { CardOwnersService } from './card-owners-service';

export interface CardListInput {
  q?: string | undefined;
  owner?: string | undefined;
  team?: string | undefined;
  status?: 'active' | 'paused' | 'inactive' | 'closed';
  sort?: CardListSort;
  direction?: 'asc' | 'desc';
  cursor?: string;
}

export interface CardsServiceDeps extends Pick<FeatureDeps, 'upstream' | 'cardDirectory'> {
  /** The cards list's money from the index (`index.cardMoney`): the figures its rows show. */
  cardsMoney(who: Who, cardIds: string[]): Promise<CardsMoney>;
  /** Each card's owner and team (Card Console's). */
  owners: Pick<CardOwnersService, 'cardsOf' | 'withOwnership'>;
}

/** How soon to ask again while the card directory has not been filled yet (after a restart). */
const DIRECTORY_RETRY_SECONDS = 2;

export function createCardsService({
  upstream,
  cardDirectory,
  cardsMoney,
  owners,
}: CardsServiceDeps) {
  /**
   * The list a search or a money order asks for, which the card service cannot give: every card
   * the directory keeps (at most a minute old), matched, ordered, and paged by the BFF. Paged
   * rather than whole, so a program of thousands of cards sorted by spend still answers small;
   * reading it costs the card service nothing, however fast a person types.
   */
  async function fromDirectory(who: Who, input: CardListInput): Promise<CardPage> {
    const at = directoryPosition(input.cursor);
    await cardDirectory.ready();
    // A directory never filled knows no card: "no card matches" would be untrue. Its first walk
    // is still running, or the card service did not answer it.
    if (!cardDirectory.filled()) {
      throw new AppError(
        503,
        'upstream_unavailable',
        'The card list is still being read from the card service; try again in a moment.',
        { retryAfterSeconds: DIRECTORY_RETRY_SECONDS },
      );
    }
    const cards = cardsMatching(cardDirectory.cards(), {
      ...input,
      cardIds: await owners.cardsOf(input),
    });
    let utilization = new Map<string, CardUtilization>();
    if (!serviceSort(input.sort) && cards.length > 0) {
      const money = await cardsMoney(
        who,
        cards.map((card) => card.id),
      );
      utilization = new Map(
        money.cards.flatMap((c) => (c.utilization ? [[c.cardId, c.utilization] as const] : [])),
      );
    }
    const page = directoryPage(
      orderCards(cards, input, (cardId) => utilization.get(cardId)),
      at,
    );
    return { ...page, items: await owners.withOwnership(page.items) };
  }

  return {
    async list(who: Who, input: CardListInput): Promise<CardPage> {
      const { sort } = input;
      // The card service knows no owner or team: their cards come from the directory.
      if (
        input.q !== undefined ||
        input.owner !== undefined ||
        input.team !== undefined ||
        !serviceSort(sort)
      ) {
        return fromDirectory(who, input);
      }
      const page = await upstream.listCards(
        { requestId: who.requestId, trace: who.trace, role: who.actor.role },
        {
          'filter:status': input.status,
          sort,
          sortDirection:
            input.direction === undefined ? undefined : input.direction === 'asc' ? 'ASC' : 'DESC',
          cursor: input.cursor,
        },
      );
      const out: CardPage = { items: await owners.withOwnership(page.items.map(toApiCard)) };
      if (page.metadata.nextCursor) out.nextCursor = page.metadata.nextCursor;
      return out;
    },

    /** Never with PAN or CVV: the upstream is not asked for them and the mapper drops them. */
    async get(who: Who, id: string): Promise<Card> {
      const card = toApiCard(
        await upstream.getCard(
          { requestId: who.requestId, trace: who.trace, role: who.actor.role },
          id,
        ),
      );
      const [owned] = await owners.withOwnership([card]);
      return owned ?? card;
    },
  };
}
