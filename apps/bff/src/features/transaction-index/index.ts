// What other features may use of the transaction index.
export {
  type IndexSearchDeps,
  type IndexSearchInput,
  type IndexStores,
  indexSearchOf,
} from './index-search-service';
export {
  type IndexedTransaction,
  type OverviewTallies,
  TransactionIndexStore,
} from './index-store';
export { createIndexSync, INDEX_HISTORY_DAYS, type IndexRowsWritten } from './index-sync';
export { MerchantNamesStore } from './merchant-names-store';
export { keepOpenDaysFresh } from './open-days-refresh';
export { upstreamSubAccountList } from './sub-account-list';
export { currentUtilizationWindow } from './utilization-window';
