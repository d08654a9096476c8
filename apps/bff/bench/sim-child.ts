// The simulator for the CSV benchmark, in its own process so the RSS measured is the BFF's.
// Talks to the parent over IPC: answers { cmd: 'pages' } and { cmd: 'latency', ms }.
import { createCardService } from '@card-console/card-service-sim';

const transactions = Number(process.env.BENCH_TRANSACTIONS ?? 100_000);
const apiKey = process.env.BENCH_API_KEY ?? 'bench-key';
const months = process.env.BENCH_MONTHS ? Number(process.env.BENCH_MONTHS) : undefined;
// Sub accounts the transactions are spread over (the simulator's own weights: busier first).
const subAccounts = Number(process.env.BENCH_SUB_ACCOUNTS ?? 1);

// One sub account holds every transaction unless BENCH_SUB_ACCOUNTS says otherwise; no rate
// limit, so the walk measures the BFF.
const sim = createCardService({
  apiKey,
  subAccounts,
  cards: 60,
  transactions,
  rateLimit: false,
  seed: 11,
  ...(months === undefined ? {} : { months }),
});
const { url } = await sim.listen(0, '127.0.0.1');
const subAccountId = sim.data.subAccounts()[0]?.id ?? '';

process.on('message', (message: { cmd: string; ms?: number }) => {
  if (message.cmd === 'pages') process.send?.({ pages: sim.stats.count('GET /transaction') });
  if (message.cmd === 'latency') {
    sim.faults.set({ latencyMs: message.ms ?? 0 });
    process.send?.({ ok: true });
  }
});
process.on('disconnect', () => {
  void sim.close().then(() => process.exit(0));
});
process.send?.({ ready: true, url, subAccountId, transactions });
