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
  subAccountId: (v) =>
    `The link's sub account “${v}” isn't a sub account id; showing every sub account.`,
  from: (v, rejected) =>
    reversed(rejected)
      ? `The link's dates were in the wrong order (from ${v} to ${rejected.to}); showing every date.`
      : `The link's From date “${v}” isn't a date; showing transactions from the earliest.`,
  to: (v, rejected) =>
    reversed(rejected)
      ? undefined
      : `The link's To date “${v}” isn't a date; showing transactions up to the latest.`,
  period: (v) => `The link's period “${v}” isn't one this screen offers; showing any time.`,
  status: (v) => `The link's status “${v}” isn't a status; it was left out.`,
  cardId: (v) => `The link's card “${v}” isn't a card id; it was left out.`,
  category: (v) => `The link's category “${v}” isn't a four-digit code; it was left out.`,
  categoryGroup: (v) => `The link's category group “${v}” isn't one; it was left out.`,
  owner: (v) => `The link's owner “${v}” is blank or longer than a name can be; it was left out.`,
  team: (v) => `The link's team “${v}” is blank or longer than a name can be; it was left out.`,
  min: (v) =>
    `The link's smallest amount “${v}” isn't an amount (or is above the largest); left out.`,
  max: (v) => `The link's largest amount “${v}” isn't an amount; left out.`,
  review: (v) => `The link's review “${v}” isn't reviewed or unreviewed; showing both.`,
  account: (v) => `The link's accounting category “${v}” isn't a category id; it was left out.`,
  tag: (v) => `The link's tag “${v}” isn't one a transaction can have; it was left out.`,
  sort: (v) => `The link's order “${v}” isn't one this screen offers; sorted by date.`,
  by: (v) => `The link's totals “${v}” aren't ones this screen offers; no totals shown.`,
  pages: pagesWords,
};
