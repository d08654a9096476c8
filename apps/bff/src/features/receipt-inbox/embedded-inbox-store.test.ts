import { migratedMemoryEngine } from '../../test/engines/embedded';
import { receiptInboxStoreContract } from './inbox-store.contract';

receiptInboxStoreContract('embedded engine (PGlite)', async () => {
  const engine = await migratedMemoryEngine();
  return { engine, close: () => engine.close() };
});
