import { type Metrics, timedEngineCall } from '../metrics/metrics';
import type { SqlEngine } from './sql-engine';

/**
 * `engine` with each statement and each transaction reported to `bff_store_operation_duration_seconds`
 * as `<store>.query` or `<store>.transaction`, by outcome: a store failing shows in
 * CardConsoleStoreErrors by engine, and its operations say which store. Statements inside a
 * transaction are the transaction's.
 */
export function timedEngine(engine: SqlEngine, metrics: Metrics, store: string): SqlEngine {
  return {
    ...engine,
    kind: engine.kind,
    query: (text, params) =>
      timedEngineCall(metrics, 'postgres', `${store}.query`, () => engine.query(text, params)),
    transaction: (work) =>
      timedEngineCall(metrics, 'postgres', `${store}.transaction`, () => engine.transaction(work)),
    background: (work, options) => engine.background(work, options),
    withMigrationClient: (use) => engine.withMigrationClient(use),
    refreshStatistics: (tables) => engine.refreshStatistics(tables),
    close: () => engine.close(),
  };
}
