// Other people's reads during an export storm: one person asks for 20 CSV exports of a large
// sub account at once while others keep reading, against the same reads with nothing else
// running. The simulator and the BFF (the bundle, as `pnpm start` runs it) each have their
// own process; idle and storm phases alternate.
import http from 'node:http';
import { loadavg } from 'node:os';
import { setTimeout as delay } from 'node:timers/promises';
import { startBff } from './lib/bff';
import { type Child, runTsToEnd, startTs } from './lib/child';
import type { ExportOutcome } from './lib/export-storm-client';
import { fmt, verdict } from './lib/stats';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/** Transactions in all; the first sub account (the exported one) gets about 46 % of them. */
const TRANSACTIONS = Number(process.env.BENCH_TRANSACTIONS ?? 250_000);
const READERS = 4;
const EXPORTS = 20;
const IDLE_MS = 4_000;
/** The storm is measured until its exports end, or this long at most (then they are cut). */
const STORM_MAX_MS = 12_000;
/** Each reader waits this long between reads, like a person paging through a table. */
const THINK_MS = 100;

export interface Scenario {
  name: string;
  short: string;
  /** The simulator's RATE_LIMIT (`off`, or unset for its demo default). */
  rateLimit?: string;
}

/** The card service as demo mode runs it (its own rate limit), and with no limit at all. */
const scenarios: Scenario[] = [
  {
    name: "the simulator's own rate limit (200 at once, 100 a second), as demo mode runs it",
    short: 'rate-limited card service',
  },
  { name: 'no rate limit', short: 'no rate limit', rateLimit: 'off' },
];
/** Other people's reads may be this many times slower (p50) while one person's exports run. */
const MAX_RATIO = 3;

export interface StormResult {
  scenario: Scenario;
  exportedRows: number;
  idle: number[];
  storm: number[];
  idleBad: number;
  stormBad: number;
  /** Per storm: exports answered 200, 429, anything else; and whether the 200s finished. */
  storms: {
    ok: number;
    refused: number;
    other: number;
    /** Of the 200s: read to the end; broken off by the BFF (a failure); still running when cut. */
    finished: number;
    broken: number;
    cut: number;
  }[];
}

interface Timed {
  status: number;
  ms: number;
}

function get(url: string, headers: Record<string, string>, agent: http.Agent): Promise<Timed> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers, agent }, (res) => {
      res.resume();
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, ms: performance.now() - started }),
      );
    });
    req.on('error', reject);
  });
}

/** A signed-in person reading lists with queries of their own (so no two reads are shared). */
function reader(index: number, base: string, cookie: string, otherSubAccount: string) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const headers = { cookie, 'x-csrf': '1' };
  const sort = index % 2 ? 'name' : 'createdAt';
  const direction = index & 2 ? 'desc' : 'asc';
  const day = 86_400_000;
  let n = 0;
  return {
    async run(until: () => boolean, into: number[]): Promise<number> {
      let bad = 0;
      while (!until()) {
        n += 1;
        const path =
          n % 2
            ? `/api/cards?sort=${sort}&direction=${direction}`
            : `/api/transactions?subAccountId=${otherSubAccount}&to=${Date.now() - n * day - index * 3_600_000}`;
        const { status, ms } = await get(`${base}${path}`, headers, agent);
        if (status === 200) into.push(ms);
        else bad += 1;
        await delay(THINK_MS);
      }
      return bad;
    },
    close: () => agent.destroy(),
  };
}

export async function runExportStorm(scenario: Scenario): Promise<StormResult> {
  const apiKey = 'bench-key';
  const children: Child[] = [];
  try {
    const sim = await startTs('bench/servers/card-service.ts', {
      env: {
        API_KEY: apiKey,
        TRANSACTIONS: String(TRANSACTIONS),
        SUB_ACCOUNTS: '3',
        ...(scenario.rateLimit ? { RATE_LIMIT: scenario.rateLimit } : {}),
      },
      ready: /^READY \d+/,
      timeoutMs: 180_000,
    });
    children.push(sim);
    const [, port, ...subs] = sim.readyLine.trim().split(' ');
    const [exported, other] = subs.map((s) => s.split(':')) as [string[], string[]];
    const simUrl = `http://127.0.0.1:${port}`;
    const bff = await startBff({ upstreamUrl: simUrl, apiKey, people: 1 + READERS });
    children.push(bff.child);
    const exporter = await bff.signIn('bench0@example.test');
    const readers = await Promise.all(
      Array.from({ length: READERS }, async (_, i) =>
        reader(i, bff.url, await bff.signIn(`bench${i + 1}@example.test`), other?.[0] as string),
      ),
    );
    const exportUrl = `${bff.url}/api/transactions/export.csv?subAccountId=${exported[0]}`;

    const result: StormResult = {
      scenario,
      exportedRows: Number(exported[1]),
      idle: [],
      storm: [],
      idleBad: 0,
      stormBad: 0,
      storms: [],
    };
    // Warm-up: every reader's path once, and the JIT.
    const warmEnd = Date.now() + 1_500;
    await Promise.all(readers.map((r) => r.run(() => Date.now() > warmEnd, [])));

    for (let round = 0; round < ROUNDS; round++) {
      const idleEnd = Date.now() + IDLE_MS;
      const idleBad = await Promise.all(
        readers.map((r) => r.run(() => Date.now() > idleEnd, result.idle)),
      );
      result.idleBad += idleBad.reduce((a, b) => a + b, 0);

      // The exports run in a process of their own: streaming them here would delay the reads
      // this process times.
      let stormOver = false;
      const storm = runTsToEnd('bench/lib/export-storm-client.ts', {
        env: {
          URL: exportUrl,
          COOKIE: exporter,
          COUNT: String(EXPORTS),
          MAX_MS: String(STORM_MAX_MS),
        },
      }).finally(() => {
        stormOver = true;
      });
      const stormBad = await Promise.all(readers.map((r) => r.run(() => stormOver, result.storm)));
      result.stormBad += stormBad.reduce((a, b) => a + b, 0);
      const outcomes = JSON.parse(
        (await storm).trim().split('\n').at(-1) ?? '[]',
      ) as ExportOutcome[];
      const ok = outcomes.filter((o) => o.status === 200);
      result.storms.push({
        ok: ok.length,
        refused: outcomes.filter((o) => o.status === 429).length,
        other: outcomes.filter((o) => o.status !== 200 && o.status !== 429).length,
        finished: ok.filter((o) => o.complete).length,
        broken: ok.filter((o) => !o.complete && !o.cut).length,
        cut: ok.filter((o) => !o.complete && o.cut).length,
      });
      // Let the BFF give the slots back and the service's rate limit refill before idling again.
      await delay(3_000);
    }
    for (const r of readers) r.close();
    return result;
  } finally {
    await Promise.all(children.map((c) => c.stop()));
  }
}

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

function describeStorms(r: StormResult): string {
  return r.storms
    .map(
      (s) =>
        `${s.ok} ran (${s.finished} to the end${s.broken ? `, ${s.broken} broken off` : ''}${s.cut ? `, ${s.cut} still running at ${STORM_MAX_MS / 1000} s` : ''}), ${s.refused} refused${s.other ? `, ${s.other} other` : ''}`,
    )
    .join('; ');
}

const ratio = (r: StormResult) => percentile(r.storm, 50) / percentile(r.idle, 50);

/** Both scenarios, one after the other, with their targets. */
export async function runExportStormBench(): Promise<{ markdown: string }> {
  const load = () =>
    loadavg()
      .map((l) => fmt(l, 1))
      .join(' / ');
  const loadBefore = load();
  const results = [];
  for (const scenario of scenarios) results.push(await runExportStorm(scenario));
  const p = (values: number[], q: number) => fmt(percentile(values, q), 1);
  const rows = results.map(
    (r) =>
      `| ${r.scenario.name} | ${p(r.idle, 50)} / ${p(r.idle, 95)} (${r.idle.length}) | ${p(r.storm, 50)} / ${p(r.storm, 95)} (${r.storm.length}) | ${fmt(ratio(r))} | ${r.idleBad} / ${r.stormBad} | ${describeStorms(r)} |`,
  );
  const storms = results.flatMap((r) => r.storms);
  const mostRan = Math.max(...storms.map((s) => s.ok));
  const refused = storms.map((s) => s.refused);
  const broken = storms.reduce((n, s) => n + s.broken + s.other, 0);
  const failedReads = results.reduce((n, r) => n + r.stormBad, 0);
  const exported = results[0]?.exportedRows ?? 0;
  const targets = [
    ...results.map((r) => ({
      what: `other people's read p50 during the storm ÷ idle p50 (${r.scenario.short})`,
      value: fmt(ratio(r)),
      goal: `≤ ${MAX_RATIO}`,
      met: ratio(r) <= MAX_RATIO,
    })),
    {
      what: `exports that ran at once, most in any storm (of ${EXPORTS} from one person)`,
      value: String(mostRan),
      goal: '≤ 2 (the per-person cap)',
      met: mostRan <= 2,
    },
    {
      what: 'exports refused with 429 in each storm',
      value: [...new Set(refused)].join(', '),
      goal: `${EXPORTS - 2}`,
      met: refused.every((n) => n === EXPORTS - 2),
    },
    {
      what: "exports that ran but ended in a failure, and other people's reads that failed, during the storms",
      value: `${broken}; ${failedReads}`,
      goal: '0; 0',
      met: broken === 0 && failedReads === 0,
    },
  ];
  const markdown = [
    `One person asks for ${EXPORTS} CSV exports at once of a sub account holding ${exported.toLocaleString('en-US')} transactions; meanwhile ${READERS} other signed-in people each read a list every ${THINK_MS} ms (alternately the cards sorted their own way and a page of another sub account's transactions with a date bound of their own, so no two reads are shared). ${ROUNDS} rounds, each ${IDLE_MS / 1000} s of reads alone, then the storm: reads timed until its exports end, or ${STORM_MAX_MS / 1000} s at most (then the storm's client hangs up). The BFF is the bundle as \`pnpm start\` runs it, with its default caps (2 exports per person, 8 in all); the simulator, the BFF and the storm's client each run in a process of their own, the reads are timed in the benchmark's. Load average (1 / 5 / 15 min) before: ${loadBefore}; after: ${load()}.`,
    '',
    '| card service | idle p50 / p95 ms (reads) | storm p50 / p95 ms (reads) | storm p50 ÷ idle p50 | failed reads, idle / storm | the exports, each storm |',
    '|---|---|---|---|---|---|',
    ...rows,
    '',
    '| target | measured | goal | |',
    '|---|---|---|---|',
    ...targets.map((t) => `| ${t.what} | ${t.value} | ${t.goal} | ${verdict(t.met)} |`),
    '',
  ].join('\n');
  return { markdown };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log((await runExportStormBench()).markdown);
}
