import { applyIndexMigrations } from '../../platform/sql/index-migrations';
import { silentLogger } from '../../test/audit-cluster';
import { migratedMemoryEngine } from '../../test/engines/embedded';
import { closePolicyStoreContract } from './close-policy-store.contract';

closePolicyStoreContract('embedded engine (PGlite)', async () => {
  const engine = await migratedMemoryEngine();
  await applyIndexMigrations(engine, silentLogger);
  return { engine, close: () => engine.close() };
});
