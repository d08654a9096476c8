import { isIsoDay } from '@card-console/shared/dates';
import { pagesWords, type RejectedWords } from '../../components/search-notice';

/** Both days are real ones, only in the wrong order. */
const reversed = (rejected: Record<string, unknown>) =>
  typeof rejected.from === 'string' &&
  typeof rejected.to === 'string' &&
  isIsoDay(rejected.from) &&
  isIsoDay(rejected.to);

/** What the Audit screen says about a link's value it left out. */
export const AUDIT_SEARCH_WORDS: RejectedWords = {
  actor: (v) => `The link's person “${v}” isn't one email address; showing everyone.`,
  action: (v) => `The link's action “${v}” isn't an action; showing all actions.`,
  attempted: (v) =>
    `The link's refused action “${v}” was left out: it isn't one, or the link's action is no refusal.`,
  outcome: (v) => `The link's outcome “${v}” isn't an outcome; showing all outcomes.`,
  cardId: (v) => `The link's card “${v}” isn't a card id; showing all cards.`,
  from: (v, rejected) =>
    reversed(rejected)
      ? `The link's dates were in the wrong order (from ${v} to ${rejected.to}); showing every date.`
      : `The link's From date “${v}” isn't a date; showing records from the earliest.`,
  to: (v, rejected) =>
    reversed(rejected)
      ? undefined
      : `The link's To date “${v}” isn't a date; showing records up to the latest.`,
  pages: pagesWords,
};
