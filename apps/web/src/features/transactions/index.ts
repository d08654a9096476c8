// What other features may use of the transactions feature besides its api/ folder.
export type { TransactionFilter, TransactionsSearch } from './transactions-search';
