// What other features may use of the transactions feature besides its api/ folder.

export { closePresetSearch, countedDaysText, countedWindow } from './close-presets';
export { monthCloseDays } from './periods';
export type { TransactionsSearch } from './transactions-search';
