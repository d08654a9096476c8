// The simulator in its own process with enough cards for many distinct list pages (CARDS),
// and no rate limit: a read benchmark measures the BFF, not the service's throttle.
// Prints `READY <port>`.
import { createCardService } from '@card-console/card-service-sim';

const sim = createCardService({
  apiKey: process.env.API_KEY ?? 'bench-key',
  cards: Number(process.env.CARDS ?? 4_000),
  transactions: 1_000,
  seed: 11,
  rateLimit: false,
});
const { port } = await sim.listen(0, '127.0.0.1');
console.log(`READY ${port}`);
process.on('SIGTERM', () => void sim.close().then(() => process.exit(0)));
