// What other features may use of the transactions feature besides its api/ folder.

export { monthCloseDays } from './periods';
export type { TransactionsSearch } from './transactions-search';
