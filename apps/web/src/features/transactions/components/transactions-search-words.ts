import { isIsoDay } from '@card-console/shared/dates';
import { pagesWords, type RejectedWords } from '../../../components/search-notice';

/** Both days are real ones, only in the wrong order. */
const reversed = (rejected: Record<string, unknown>) =>
  typeof rejected.from === 'string' &&
  typeof rejected.to === 'string' &&
  isIsoDay(rejected.from) &&
  isIsoDay(rejected.to);

/** What the Transactions screen says about a link's value it left out. */
export const TRANSACTIONS_SEARCH_WORDS: RejectedWords = {
  subAccountId: (v) => `The link's sub account “${v}” isn't a sub account id; showing the first.`,
  from: (v, rejected) =>
    reversed(rejected)
      ? `The link's dates were in the wrong order (from ${v} to ${rejected.to}); showing every date.`
      : `The link's From date “${v}” isn't a date; showing transactions from the earliest.`,
  to: (v, rejected) =>
    reversed(rejected)
      ? undefined
      : `The link's To date “${v}” isn't a date; showing transactions up to the latest.`,
  status: (v) => `The link's status “${v}” isn't a status; showing all statuses.`,
  cardId: (v) => `The link's card “${v}” isn't a card id; showing all cards.`,
  pages: pagesWords,
};
