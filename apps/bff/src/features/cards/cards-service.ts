import type { Card, CardPage } from '@card-console/shared/api/cards';
import type { Who } from '../../platform/sessions/who';
import type { FeatureDeps } from '../feature-deps';
import { toApiCard } from './card-mapper';

export interface CardListInput {
  status?: 'active' | 'paused' | 'inactive' | 'closed';
  sort?: 'createdAt' | 'name';
  direction?: 'asc' | 'desc';
  cursor?: string;
}

export function createCardsService({ upstream }: Pick<FeatureDeps, 'upstream'>) {
  return {
    async list(who: Who, input: CardListInput): Promise<CardPage> {
      const page = await upstream.listCards(
        { requestId: who.requestId, trace: who.trace, role: who.actor.role },
        {
          'filter:status': input.status,
          sort: input.sort,
          sortDirection:
            input.direction === undefined ? undefined : input.direction === 'asc' ? 'ASC' : 'DESC',
          cursor: input.cursor,
        },
      );
      const out: CardPage = { items: page.items.map(toApiCard) };
      if (page.metadata.nextCursor) out.nextCursor = page.metadata.nextCursor;
      return out;
    },

    /** Never with PAN or CVV: the upstream is not asked for them and the mapper drops them. */
    async get(who: Who, id: string): Promise<Card> {
      return toApiCard(
        await upstream.getCard(
          { requestId: who.requestId, trace: who.trace, role: who.actor.role },
          id,
        ),
      );
    },
  };
}
