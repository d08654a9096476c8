import { type CardStatus, cardSortFields, cardStatuses } from '@card-console/shared/upstream/enums';
import { oneOf, pageCount, resourceId } from '../../lib/search-params';

/** The cards list's URL state. */
export interface CardsSearch {
  /** The cards that spend from this sub account only (from the index; one answer, no pages). */
  subAccountId?: string | undefined;
  status?: CardStatus | undefined;
  sort?: (typeof cardSortFields)[number] | undefined;
  direction?: 'asc' | 'desc' | undefined;
  /** Pages shown, from the first ("Load more" adds one); none for one. */
  pages?: number | undefined;
}

/** A bad value falls back to the default instead of failing. */
export function validateCardsSearch(search: Record<string, unknown>): CardsSearch {
  return {
    subAccountId: resourceId(search.subAccountId),
    status: oneOf(cardStatuses, search.status),
    sort: oneOf(cardSortFields, search.sort),
    direction: oneOf(['asc', 'desc'] as const, search.direction),
    pages: pageCount(search.pages),
  };
}
