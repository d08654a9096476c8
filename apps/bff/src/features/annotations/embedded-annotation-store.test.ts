import { applyIndexMigrations } from '../../platform/sql/index-migrations';
import { embeddedEngine } from '../../platform/sql/sql-engine';
import { silentLogger } from '../../test/audit-cluster';
import { annotationStoreContract } from './annotation-store.contract';

annotationStoreContract('embedded engine (PGlite)', async () => {
  const engine = await embeddedEngine();
  await applyIndexMigrations(engine, silentLogger);
  return { engine, close: () => engine.close() };
});
