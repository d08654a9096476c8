import { migratedMemoryEngine } from '../../test/engines/embedded';
import { merchantNamesStoreContract } from './merchant-names-store.contract';

merchantNamesStoreContract('embedded engine (PGlite)', async () => {
  const engine = await migratedMemoryEngine();
  return { engine, close: () => engine.close() };
});
