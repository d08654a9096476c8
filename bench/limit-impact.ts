// The limit impact preview for a card with about 10,000 transactions in its last 90 days: the
// BFF's preview service with its real upstream client, against the simulator over loopback
// HTTP (in this process, so the figure includes the simulator's own work: pessimistic).
import { createCardService } from '@card-console/card-service-sim';
import { systemClock } from '../apps/bff/src/core/clock';
import { createLimitImpactService } from '../apps/bff/src/features/cards/limit-impact-service';
import { createLogger } from '../apps/bff/src/platform/logger';
import { createUpstreamClient } from '../apps/bff/src/upstream/client';
import { createWalkGate } from '../apps/bff/src/upstream/walk-gate';
import { fmt, fmtSpread, spread, verdict } from './lib/stats';

const ROUNDS = 15;
const GOAL_MS = 1_000;

export async function runLimitImpactBench(): Promise<{ markdown: string }> {
  const apiKey = 'bench-key';
  // 3 months of data in 4 sub accounts with one card each, enough that the first card has
  // about 10,000 transactions in its last 90 days (the report prints the count it measured).
  const sim = createCardService({
    apiKey,
    subAccounts: 4,
    cards: 4,
    transactions: 74_000,
    months: 3,
    rateLimit: false,
    seed: 18,
  });
  const { url } = await sim.listen(0, '127.0.0.1');
  const logger = createLogger('warn', { write: () => {} });
  const upstream = createUpstreamClient({ baseUrl: url, apiKey, logger });
  // Previews one after another: the default slots never make one wait.
  const walkGate = createWalkGate({ perPerson: 2, total: 4 });
  const service = createLimitImpactService({ upstream, clock: systemClock, walkGate });
  const card = sim.data.cards()[0];
  if (!card) throw new Error('the simulator has no card');
  const who = {
    requestId: 'bench-limit-impact',
    actor: { email: 'bench@example.com', role: 'admin' as const },
  };
  try {
    // A first preview warms the connections and the compiled checks.
    const first = await service.preview(who, card.id, { maximumCents: 10_000 });
    const times: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      sim.stats.reset();
      const started = performance.now();
      await service.preview(who, card.id, { maximumCents: 10_000 + round });
      times.push(performance.now() - started);
    }
    const pages = sim.stats.count('GET /transaction');
    const ms = spread(times);
    const markdown = [
      `One card with ${fmt(first.examined, 0)} transactions in its last 90 days (4 sub accounts, each asked for the card's rows; ${pages} transaction pages a preview, 50 rows a page), ${ROUNDS} previews one after another, median (min–max).`,
      '',
      '| target | measured | goal | |',
      '|---|---|---|---|',
      `| limit impact preview, ${fmt(first.examined, 0)} transactions in 90 days (ms) | ${fmtSpread(ms, 0)} | ≤ ${fmt(GOAL_MS, 0)} | ${verdict(ms.median <= GOAL_MS)} |`,
    ].join('\n');
    return { markdown };
  } finally {
    await upstream.close();
    await sim.close();
  }
}
