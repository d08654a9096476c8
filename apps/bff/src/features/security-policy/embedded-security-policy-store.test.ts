import { migratedMemoryEngine } from '../../test/engines/embedded';
import { securityPolicyStoreContract } from './security-policy-store.contract';

securityPolicyStoreContract('embedded engine (PGlite)', async () => {
  const engine = await migratedMemoryEngine();
  return { engine, close: () => engine.close() };
});
