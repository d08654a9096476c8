/**
 * Page latency of GET /transaction at 20k and 1M transactions, over real HTTP on loopback.
 * Not a timed test: run with `npx tsx bench/page-scaling.ts`, or call runPageScalingBench().
 */
import http from 'node:http';
import { pathToFileURL } from 'node:url';
import { type CardService, createCardService } from '../src/index';

export interface LatencyStats {
  min: number;
  median: number;
  max: number;
}

export interface PageScalingRow {
  filter: string;
  page: 'first' | 'middle' | 'last';
  small: LatencyStats;
  large: LatencyStats;
  /** median at 1M / median at 20k */
  ratio: number;
}

export interface PageScalingOptions {
  smallTransactions?: number;
  largeTransactions?: number;
  rounds?: number;
}

const API_KEY = 'bench-key';
const NOW = Date.UTC(2026, 10, 1);
const MONTH_MS = 30 * 86_400_000;

interface Target {
  service: CardService;
  agent: http.Agent;
  url: string;
  buildMs: number;
  /** filter name → page position → path */
  paths: Map<string, Map<PageScalingRow['page'], string>>;
  pageCounts: Map<string, number>;
}

function get(agent: http.Agent, url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent, headers: { 'x-api-key': API_KEY } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

async function start(transactions: number): Promise<Target> {
  const started = performance.now();
  const service = createCardService({
    apiKey: API_KEY,
    transactions,
    rateLimit: false,
    now: () => NOW,
  });
  const buildMs = performance.now() - started;
  const { url } = await service.listen(0);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const sub = service.data.subAccounts()[0]?.id ?? '';
  const filters: Record<string, string> = {
    unfiltered: `/transaction?subAccountId=${sub}`,
    'status=settled': `/transaction?subAccountId=${sub}&status=settled`,
    'date range (6 months)': `/transaction?subAccountId=${sub}&from_date=${NOW - 12 * MONTH_MS}&to_date=${NOW - 6 * MONTH_MS}`,
  };
  const paths = new Map<string, Map<PageScalingRow['page'], string>>();
  const pageCounts = new Map<string, number>();
  for (const [name, path] of Object.entries(filters)) {
    // Walk every page once (unmeasured) to learn the cursors of the middle and last pages.
    const pagePaths = [path];
    for (;;) {
      const { status, body } = await get(agent, url + (pagePaths.at(-1) ?? ''));
      if (status !== 200) throw new Error(`bench: ${name} answered ${status}`);
      const next = (JSON.parse(body) as { metadata: { nextCursor?: string } }).metadata.nextCursor;
      if (!next) break;
      pagePaths.push(`${path}&cursor=${encodeURIComponent(next)}`);
    }
    pageCounts.set(name, pagePaths.length);
    paths.set(
      name,
      new Map([
        ['first', pagePaths[0] ?? path],
        ['middle', pagePaths[Math.floor(pagePaths.length / 2)] ?? path],
        ['last', pagePaths.at(-1) ?? path],
      ]),
    );
  }
  return { service, agent, url, buildMs, paths, pageCounts };
}

function summarize(samples: number[]): LatencyStats {
  const sorted = [...samples].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)] ?? 0;
  return { min: sorted[0] ?? 0, median, max: sorted.at(-1) ?? 0 };
}

const f = (n: number) => n.toFixed(3);

export async function runPageScalingBench(
  options: PageScalingOptions = {},
): Promise<{ markdown: string; rows: PageScalingRow[] }> {
  const smallN = options.smallTransactions ?? 20_000;
  const largeN = options.largeTransactions ?? 1_000_000;
  const rounds = options.rounds ?? 40;
  const small = await start(smallN);
  const large = await start(largeN);
  try {
    const keys = [...small.paths.entries()].flatMap(([filter, pages]) =>
      [...pages.keys()].map((page) => ({ filter, page })),
    );
    const samples = new Map<string, { small: number[]; large: number[] }>();
    for (const k of keys) samples.set(`${k.filter}|${k.page}`, { small: [], large: [] });
    const warmup = 5;
    for (let round = 0; round < warmup + rounds; round++) {
      // Interleave: every case at both sizes in each round, alternating which size goes first.
      const order = round % 2 === 0 ? [small, large] : [large, small];
      for (const k of keys) {
        for (const target of order) {
          const path = target.paths.get(k.filter)?.get(k.page) ?? '';
          const t0 = performance.now();
          const { status } = await get(target.agent, target.url + path);
          const elapsed = performance.now() - t0;
          if (status !== 200) throw new Error(`bench: ${path} answered ${status}`);
          if (round < warmup) continue;
          const bucket = samples.get(`${k.filter}|${k.page}`);
          (target === small ? bucket?.small : bucket?.large)?.push(elapsed);
        }
      }
    }
    const rows: PageScalingRow[] = keys.map((k) => {
      const s = samples.get(`${k.filter}|${k.page}`) ?? { small: [], large: [] };
      const a = summarize(s.small);
      const b = summarize(s.large);
      return { filter: k.filter, page: k.page, small: a, large: b, ratio: b.median / a.median };
    });
    const label = (n: number) => (n >= 1_000_000 ? `${n / 1_000_000}M` : `${n / 1000}k`);
    const lines = [
      `GET /transaction page latency over loopback HTTP (50 items/page, ${rounds} interleaved rounds after ${warmup} warm-up; ms min / median / max)`,
      '',
      `| filter | page | ${label(smallN)} (pages) | ${label(largeN)} (pages) | ${label(smallN)} min / med / max | ${label(largeN)} min / med / max | median ratio ${label(largeN)}/${label(smallN)} |`,
      '|---|---|---|---|---|---|---|',
      ...rows.map(
        (r) =>
          `| ${r.filter} | ${r.page} | ${small.pageCounts.get(r.filter)} | ${large.pageCounts.get(r.filter)} | ${f(r.small.min)} / ${f(r.small.median)} / ${f(r.small.max)} | ${f(r.large.min)} / ${f(r.large.median)} / ${f(r.large.max)} | ${r.ratio.toFixed(2)} |`,
      ),
      '',
      `Data generation + indexing: ${label(smallN)} in ${small.buildMs.toFixed(0)} ms, ${label(largeN)} in ${large.buildMs.toFixed(0)} ms.`,
    ];
    return { markdown: lines.join('\n'), rows };
  } finally {
    small.agent.destroy();
    large.agent.destroy();
    await Promise.all([small.service.close(), large.service.close()]);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { markdown } = await runPageScalingBench();
  console.log(markdown);
}
