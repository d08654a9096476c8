import { migratedMemoryEngine } from '../../test/engines/embedded';
import { cardOwnersStoreContract } from './card-owners-store.contract';

cardOwnersStoreContract('embedded engine (PGlite)', async () => {
  const engine = await migratedMemoryEngine();
  return { engine, close: () => engine.close() };
});
