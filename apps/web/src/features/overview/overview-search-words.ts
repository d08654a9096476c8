import type { RejectedWords } from '../../components/search-notice';

const shown = (value: unknown) => (typeof value === 'string' ? `“${value}”` : 'none');

/** Days that came with a period other than a custom one (or none): said once, by `from`. */
const strayDays = (rejected: Record<string, unknown>) =>
  rejected.period === 'custom'
    ? undefined
    : `The link's days (from ${shown(rejected.from)} to ${shown(rejected.to)}) count only with a custom period; they were left out.`;

/** What the Overview says about a link's value it left out. */
export const OVERVIEW_SEARCH_WORDS: RejectedWords = {
  subAccountId: (v) => `The link's sub account “${v}” isn't a sub account id; showing all of them.`,
  period: (v, rejected) =>
    v === 'custom'
      ? `The link's custom period (from ${shown(rejected.from)} to ${shown(rejected.to)}) needs two days in order, at most 366 days apart; showing the last 30 days.`
      : `The link's period “${v}” isn't one the Overview shows; showing the last 30 days.`,
  from: (_v, rejected) => strayDays(rejected),
  to: (_v, rejected) => ('from' in rejected ? undefined : strayDays(rejected)),
};
