import {
  CARD_SEARCH_MAX,
  type CardListSort,
  cardListSorts,
  OWNERSHIP_NAME_MAX,
} from '@card-console/shared/index-vocabulary';
import { type CardStatus, cardStatuses } from '@card-console/shared/upstream/enums';
import { oneOf, pageCount, resourceId, text } from '../../lib/search-params';

/** The cards list's URL state. */
export interface CardsSearch {
  /** The cards that spend from this sub account only (from the index; one answer, no pages). */
  subAccountId?: string | undefined;
  /** Part of a card's name or of its last four, as typed. */
  q?: string | undefined;
  status?: CardStatus | undefined;
  sort?: CardListSort | undefined;
  direction?: 'asc' | 'desc' | undefined;
  /** The cards of this owner, or of this team, by name in any case (Card Console's own). */
  owner?: string | undefined;
  team?: string | undefined;
  /** Pages shown, from the first ("Load more" adds one); none for one. */
  pages?: number | undefined;
}

/** A bad value falls back to the default instead of failing. */
export function validateCardsSearch(search: Record<string, unknown>): CardsSearch {
  return {
    subAccountId: resourceId(search.subAccountId),
    q: text(search.q, CARD_SEARCH_MAX),
    status: oneOf(cardStatuses, search.status),
    sort: oneOf(cardListSorts, search.sort),
    direction: oneOf(['asc', 'desc'] as const, search.direction),
    owner: ownershipName(search.owner),
    team: ownershipName(search.team),
    pages: pageCount(search.pages),
  };
}

/** An owner's or a team's name from a link: not blank, not longer than a name can be. */
function ownershipName(value: unknown): string | undefined {
  return text(value, OWNERSHIP_NAME_MAX, /\S/);
}
