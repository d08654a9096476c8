// The simulator for the CSV benchmark, in its own process so the RSS measured is the BFF's.
// Talks to the parent over IPC: answers { cmd: 'pages' }, { cmd: 'latency', ms } and
// { cmd: 'arrive', perSub } (new card transactions, dated now, as a card program sees them).
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

// What arrives: each sub account's cards in turn, amounts and statuses from a counter, so every
// run adds the same rows.
let arrived = 0;
let cardsOf: Map<string, string[]> | undefined;
/** Each sub account's cards, as its transactions name them (read once, at the first ask). */
function subAccountCards(): Map<string, string[]> {
  cardsOf ??= new Map(
    sim.data
      .subAccounts()
      .map((sub) => [
        sub.id,
        [
          ...new Set(sim.data.transactions(sub.id).flatMap((t) => (t.cardId ? [t.cardId] : []))),
        ].sort(),
      ]),
  );
  return cardsOf;
}

process.on('message', (message: { cmd: string; ms?: number; perSub?: number }) => {
  if (message.cmd === 'pages') process.send?.({ pages: sim.stats.count('GET /transaction') });
  if (message.cmd === 'arrive') {
    let added = 0;
    for (const sub of sim.data.subAccounts()) {
      const cards = subAccountCards().get(sub.id) ?? [];
      for (let i = 0; i < (message.perSub ?? 0) && cards.length > 0; i++, arrived++) {
        sim.testing.addTransaction({
          subAccountId: sub.id,
          cardId: cards[arrived % cards.length],
          amountCents: -(500 + ((arrived * 7_919) % 40_000)),
          status: arrived % 5 === 0 ? 'pending' : 'settled',
          description: `Arrival ${arrived % 50}`,
          merchantDescription: `ARRIVAL ${arrived % 50} SEATTLE WA`,
          categoryCode: ['5812', '5734', '4511', '5411'][arrived % 4],
        });
        added++;
      }
    }
    process.send?.({ added });
  }
  if (message.cmd === 'latency') {
    sim.faults.set({ latencyMs: message.ms ?? 0 });
    process.send?.({ ok: true });
  }
});
process.on('disconnect', () => {
  void sim.close().then(() => process.exit(0));
});
process.send?.({ ready: true, url, subAccountId, transactions });
