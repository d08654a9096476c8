import { applyIndexMigrations } from '../../platform/sql/index-migrations';
import { silentLogger } from '../../test/audit-cluster';
import { migratedMemoryEngine } from '../../test/engines/embedded';
import { cardOwnersStoreContract } from './card-owners-store.contract';

cardOwnersStoreContract('embedded engine (PGlite)', async () => {
  const engine = await migratedMemoryEngine();
  await applyIndexMigrations(engine, silentLogger);
  return { engine, close: () => engine.close() };
});
