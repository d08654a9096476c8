import { memoryEngine, migratedMemoryEngine } from '../../test/engines/embedded';
import { peopleRacesContract } from './people-races.contract';
import { peopleSecretsContract } from './people-secrets.contract';
import { peopleStoreContract } from './people-store.contract';

// One in-process engine: the "replicas" of the race suite are calls made at once on it.
const open = async () => {
  const engine = await migratedMemoryEngine();
  return { engines: [engine], close: () => engine.close() };
};

peopleStoreContract('embedded engine (PGlite)', open);
peopleRacesContract('embedded engine (PGlite)', open);
// An engine before any migration, for the upgrade from secrets kept in clear.
peopleSecretsContract('embedded engine (PGlite)', open, async () => {
  const engine = await memoryEngine();
  return { engine, close: () => engine.close() };
});
