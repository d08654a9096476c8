import { applyIndexMigrations } from '../../platform/sql/index-migrations';
import { silentLogger } from '../../test/audit-cluster';
import { migratedMemoryEngine } from '../../test/engines/embedded';
import { receiptInboxStoreContract } from './inbox-store.contract';

receiptInboxStoreContract('embedded engine (PGlite)', async () => {
  const engine = await migratedMemoryEngine();
  await applyIndexMigrations(engine, silentLogger);
  return { engine, close: () => engine.close() };
});
