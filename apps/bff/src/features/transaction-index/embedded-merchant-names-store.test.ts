import { applyIndexMigrations } from '../../platform/sql/index-migrations';
import { silentLogger } from '../../test/audit-cluster';
import { migratedMemoryEngine } from '../../test/engines/embedded';
import { merchantNamesStoreContract } from './merchant-names-store.contract';

merchantNamesStoreContract('embedded engine (PGlite)', async () => {
  const engine = await migratedMemoryEngine();
  await applyIndexMigrations(engine, silentLogger);
  return { engine, close: () => engine.close() };
});
