// What other features may use of the transaction index. The PostgreSQL opening loads `pg`, which
// a deployment on the embedded engine never holds (docs/decisions/0004): it is offered as a loader.
export { type IndexSearchDeps, type IndexStores, indexSearchOf } from './index-search-service';
export {
  type IndexedTransaction,
  type OverviewTallies,
  TransactionIndexStore,
} from './index-store';
export { createIndexSync, INDEX_HISTORY_DAYS, type IndexRowsWritten } from './index-sync';
export { upstreamSubAccountList } from './sub-account-list';
export { currentUtilizationWindow } from './utilization-window';

export const loadPostgresIndex = () => import('./postgres-index');
