import { type CardStatus, cardSortFields, cardStatuses } from '@card-console/shared/upstream/enums';
import { type CursorStack, parseCursorStack } from '../../lib/cursor-stack';
import { oneOf } from '../../lib/search-params';

/** The cards list's URL state. */
export interface CardsSearch {
  status?: CardStatus | undefined;
  sort?: (typeof cardSortFields)[number] | undefined;
  direction?: 'asc' | 'desc' | undefined;
  cursors?: CursorStack;
}

/** A bad value falls back to the default instead of failing. */
export function validateCardsSearch(search: Record<string, unknown>): CardsSearch {
  return {
    status: oneOf(cardStatuses, search.status),
    sort: oneOf(cardSortFields, search.sort),
    direction: oneOf(['asc', 'desc'] as const, search.direction),
    cursors: parseCursorStack(search.cursors),
  };
}
