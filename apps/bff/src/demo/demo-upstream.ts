import { randomBytes } from 'node:crypto';
import { createCardService } from '@card-console/card-service-sim';

/**
 * Demo mode's upstream: the simulator in this process on a loopback port, with default seeded
 * data and a random key that exists only in memory, reached over real HTTP like the real one.
 */
export async function startDemoUpstream(options: { transactions?: number } = {}) {
  const apiKey = randomBytes(24).toString('base64url');
  const sim = createCardService({
    apiKey,
    ...(options.transactions === undefined ? {} : { transactions: options.transactions }),
  });
  const { url } = await sim.listen(0, '127.0.0.1');
  return { baseUrl: url, apiKey, close: () => sim.close() };
}
