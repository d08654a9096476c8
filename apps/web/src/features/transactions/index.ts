// What other features may use of the transactions feature besides its api/ folder.

export { monthCloseDays } from '../../lib/periods';
export { closePresetSearch, countedDaysText, countedWindow } from './close-presets';
export type { TransactionsSearch } from './transactions-search';
