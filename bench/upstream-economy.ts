// Upstream economy: how many calls reach the Card Program Service for what people do.
// The simulator runs in this process so its request counter can be read directly.
import { createCardService } from '@card-console/card-service-sim';
import { startBff } from './lib/bff';
import { countScreenCalls } from './lib/screen-calls';
import { verdict } from './lib/stats';
import { ensureWebBuild } from './lib/web-build';

const PEOPLE = 20;

export async function runUpstreamEconomyBench(): Promise<{ markdown: string }> {
  ensureWebBuild();
  const sim = createCardService({ apiKey: 'bench-key', rateLimit: false });
  const { url: simUrl } = await sim.listen(0);
  const bff = await startBff({ upstreamUrl: simUrl, apiKey: 'bench-key', people: PEOPLE });
  try {
    const lines: string[] = [];

    // 20 people open the same list at the same moment, against an upstream that takes 50 ms
    // to answer (as a real one over the internet would), so their requests overlap.
    const cookies = await Promise.all(
      Array.from({ length: PEOPLE }, (_, i) => bff.signIn(`bench${i}@example.test`)),
    );
    const concurrent: { what: string; path: string; route: string }[] = [
      { what: 'cards list', path: '/api/cards', route: 'GET /card' },
      { what: 'sub-account list', path: '/api/sub-accounts', route: 'GET /sub-account' },
    ];
    const subAccountId = sim.data.subAccounts()[0]?.id as string;
    concurrent.push({
      what: 'transactions list',
      path: `/api/transactions?subAccountId=${subAccountId}`,
      route: 'GET /transaction',
    });
    sim.faults.set({ latencyMs: 50 });
    const concurrentRows: string[] = [];
    for (const c of concurrent) {
      sim.stats.reset();
      const statuses = await Promise.all(
        cookies.map((cookie) =>
          fetch(`${bff.url}${c.path}`, { headers: { cookie, 'x-csrf': '1' } }).then(async (r) => {
            await r.arrayBuffer();
            return r.status;
          }),
        ),
      );
      const ok = statuses.filter((s) => s === 200).length;
      const calls = sim.stats.count(c.route);
      concurrentRows.push(
        `| ${PEOPLE} people open the ${c.what} at once | ${ok}/${PEOPLE} | ${calls} | 1 | ${verdict(calls === 1 && ok === PEOPLE)} |`,
      );
    }
    sim.faults.set({ latencyMs: 0 });
    lines.push(
      '| situation | answered 200 | upstream calls | goal | |',
      '|---|---|---|---|---|',
      ...concurrentRows,
      '',
    );

    const screens = await countScreenCalls({ bffUrl: bff.url, sim });
    lines.push(
      'Each screen opened cold in headless Chromium (fresh page, signed in); upstream calls counted by the simulator while it loads.',
      '',
      '| screen | visible lists / reads | upstream calls | goal | |',
      '|---|---|---|---|---|',
      ...screens.map(
        (s) =>
          `| ${s.screen} | ${s.visible} | ${s.calls} (${s.detail}) | ${s.goal} | ${verdict(s.calls <= s.goal)} |`,
      ),
      '',
    );
    return { markdown: lines.join('\n') };
  } finally {
    await bff.stop();
    await sim.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log((await runUpstreamEconomyBench()).markdown);
}
