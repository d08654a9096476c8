import { silentLogger } from '../../test/audit-cluster';
import { applyIndexMigrations } from '../transaction-index/index-migrations';
import { embeddedEngine } from '../transaction-index/sql-engine';
import { annotationStoreContract } from './annotation-store.contract';

annotationStoreContract('embedded engine (PGlite)', async () => {
  const engine = await embeddedEngine();
  await applyIndexMigrations(engine, silentLogger);
  return { engine, close: () => engine.close() };
});
