import { ManualClock } from '../../test/manual-clock';
import { MemorySessionStore } from './session-store';
import { sessionStoreContract } from './session-store.contract';

sessionStoreContract('MemorySessionStore', async () => {
  const clock = new ManualClock();
  const store = new MemorySessionStore(clock);
  return { a: store, b: store, pass: async (ms) => clock.advance(ms) };
});
