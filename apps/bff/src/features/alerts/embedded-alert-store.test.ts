import { migratedMemoryEngine } from '../../test/engines/embedded';
import { alertLimitsContract } from './alert-limits.contract';
import { alertStoreContract } from './alert-store.contract';

// One process holds the embedded engine: the "second engine" of the races is the same one,
// whose own queue then orders the raises.
alertStoreContract('embedded engine (PGlite)', async () => {
  const engine = await migratedMemoryEngine();
  return { engine, second: engine, close: () => engine.close() };
});

alertLimitsContract('embedded engine (PGlite)', async () => {
  const engine = await migratedMemoryEngine();
  return { engine, second: engine, close: () => engine.close() };
});
