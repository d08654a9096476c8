// The cards list where the card service cannot make it: a search by name or last four, or an
// order by the index's money. It is made from every card the card directory keeps, matched and
// ordered here (the cards list, and a sub account's cards, read the same rules).

import type { Card, CardPage } from '@card-console/shared/api/cards';
import type { CardUtilization } from '@card-console/shared/api/transaction-index';
import type { CardListSort } from '@card-console/shared/index-vocabulary';
import type { CardSortField, CardStatus } from '@card-console/shared/upstream/enums';
import { AppError } from '../../core/app-error';
import { storable } from '../../platform/sql/storable';

export interface CardListFilter {
  q?: string | undefined;
  status?: CardStatus | undefined;
  /** Only these cards (an owner's or a team's, `card-owners-store.ts`), by their stored ids. */
  cardIds?: ReadonlySet<string> | undefined;
}

export interface CardListOrder {
  sort?: CardListSort | undefined;
  direction?: 'asc' | 'desc' | undefined;
}

/** An order the card service can give (created date, name); the others need the index. */
export const serviceSort = (sort: CardListSort | undefined): sort is CardSortField | undefined =>
  sort === undefined || sort === 'createdAt' || sort === 'name';

/** Lower case, accents dropped: "Café" is found by "cafe", "CAFÉ" and "café". */
const folded = (text: string) => text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();

/** What a person copies from a masked number ("•••• 6707") around its digits. */
const maskMarks = /[\s•*·.…-]/gu;

/** The cards of a status whose name holds the search, or whose last four hold its digits. */
export function cardsMatching(cards: readonly Card[], filter: CardListFilter): Card[] {
  const { q, status, cardIds } = filter;
  const text = q === undefined ? undefined : folded(q);
  const digits = q?.replace(maskMarks, '');
  const lastFour = digits !== undefined && /^\d+$/.test(digits) ? digits : undefined;
  return cards.filter(
    (card) =>
      (status === undefined || card.status === status) &&
      (cardIds === undefined || cardIds.has(storable(card.id))) &&
      (text === undefined ||
        folded(card.name).includes(text) ||
        (lastFour !== undefined && card.last4.includes(lastFour))),
  );
}

/**
 * The spend a card's row shows: measured in the current window of the limit the row shows. A
 * figure measured against another limit (changed since the index read it), or none (no limit,
 * no amount, a window that cannot be known) is no figure, as the row's bar shows none.
 */
function shownSpend(card: Card, u: CardUtilization | undefined) {
  const live = card.utilizationLimit;
  if (!live?.limitCents || !u?.window || u.spentCents === undefined) return undefined;
  if (u.limitCents !== live.limitCents || u.preset !== live.preset) return undefined;
  return { spentCents: u.spentCents, limitCents: live.limitCents };
}

const byName = new Intl.Collator('en');
const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The cards in the order asked (descending unless `asc`): by created date (a card without one
 * last) or name (English collation), ties by id; by spend or utilisation (spend over the limit)
 * as each row shows it (`utilizationOf`: the index's, `index.cardMoney`), a card showing none
 * last, ties by name then id.
 */
export function orderCards(
  cards: readonly Card[],
  order: CardListOrder,
  utilizationOf: (cardId: string) => CardUtilization | undefined = () => undefined,
): Card[] {
  const sign = order.direction === 'asc' ? 1 : -1;
  const sort = order.sort ?? 'createdAt';
  if (serviceSort(sort)) {
    const key = (card: Card) => (sort === 'name' ? card.name : (card.createdAt ?? ''));
    return [...cards].sort((a, b) => {
      if (sort !== 'name' && !a.createdAt !== !b.createdAt) return a.createdAt ? -1 : 1;
      const byKey = sort === 'name' ? byName.compare(key(a), key(b)) : compareText(key(a), key(b));
      return sign * byKey || compareText(a.id, b.id);
    });
  }
  const keyed = cards.map((card) => {
    const shown = shownSpend(card, utilizationOf(card.id));
    const key =
      shown === undefined
        ? undefined
        : sort === 'spend'
          ? shown.spentCents
          : shown.spentCents / shown.limitCents;
    return { card, key };
  });
  keyed.sort((a, b) => {
    if ((a.key === undefined) !== (b.key === undefined)) return a.key === undefined ? 1 : -1;
    const byKey = a.key === undefined || b.key === undefined ? 0 : sign * (a.key - b.key);
    return byKey || byName.compare(a.card.name, b.card.name) || compareText(a.card.id, b.card.id);
  });
  return keyed.map(({ card }) => card);
}

/** A page of the directory's list, as many cards as a page of the card service's. */
export const DIRECTORY_PAGE = 25;

/** This list's cursors: where the next page starts (`at:25`); the card service's mean nothing here. */
const cursorPattern = /^at:([1-9]\d{0,8})$/;

/** Where a cursor of this list starts, or a 400 for any other (the card service's included). */
export function directoryPosition(cursor: string | undefined): number {
  if (cursor === undefined) return 0;
  const at = cursorPattern.exec(cursor)?.[1];
  if (at === undefined) {
    throw new AppError(
      400,
      'invalid_query',
      'cursor: not one this search or sort gave; ask for the first page again.',
    );
  }
  return Number(at);
}

/**
 * The page from `at`. Its cursor is a position, so a card that joins or leaves the list between
 * two pages (a walk of the directory, a charge changing the order) can shift the rest by one:
 * the list is a minute old at most anyway, and "Load more" never fails on it.
 */
export function directoryPage(cards: readonly Card[], at: number): CardPage {
  const next = at + DIRECTORY_PAGE;
  const page: CardPage = { items: cards.slice(at, next) };
  if (next < cards.length) page.nextCursor = `at:${next}`;
  return page;
}
