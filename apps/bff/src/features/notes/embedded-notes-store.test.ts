import { migratedMemoryEngine } from '../../test/engines/embedded';
import { notesStoreContract } from './notes-store.contract';

notesStoreContract('embedded engine (PGlite)', async () => {
  const engine = await migratedMemoryEngine();
  return { engine, close: () => engine.close() };
});
