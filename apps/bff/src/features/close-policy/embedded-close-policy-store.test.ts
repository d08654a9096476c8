import { migratedMemoryEngine } from '../../test/engines/embedded';
import { closePolicyStoreContract } from './close-policy-store.contract';

closePolicyStoreContract('embedded engine (PGlite)', async () => {
  const engine = await migratedMemoryEngine();
  return { engine, close: () => engine.close() };
});
