// The simulator on its own process for a benchmark, so its CPU is not the measuring process's.
// TRANSACTIONS, SUB_ACCOUNTS, API_KEY; RATE_LIMIT "off" or "capacity/refillPerSecond" (unset:
// the simulator's own default, as demo mode runs it). Prints `READY <port> <sub account ids>`.
import { createCardService } from '@card-console/card-service-sim';

function rateLimit(value: string | undefined) {
  if (value === undefined || value === '') return undefined;
  if (value === 'off') return false;
  const [capacity, refillPerSecond] = value.split('/').map(Number);
  if (!capacity || !refillPerSecond)
    throw new Error(`RATE_LIMIT: expected off or N/M, got ${value}`);
  return { capacity, refillPerSecond };
}

const limit = rateLimit(process.env.RATE_LIMIT);
const sim = createCardService({
  apiKey: process.env.API_KEY ?? 'bench-key',
  transactions: Number(process.env.TRANSACTIONS ?? 20_000),
  subAccounts: Number(process.env.SUB_ACCOUNTS ?? 4),
  seed: 11,
  ...(limit === undefined ? {} : { rateLimit: limit }),
});
const { port } = await sim.listen(0, '127.0.0.1');
const ids = sim.data.subAccounts().map((s) => `${s.id}:${sim.data.transactions(s.id).length}`);
console.log(`READY ${port} ${ids.join(' ')}`);
process.on('SIGTERM', () => void sim.close().then(() => process.exit(0)));
