// Many signed-in people at once, each on one keep-alive connection with their own headers
// (cookie) and their own queries, each asking for the next as soon as the last is answered.
// autocannon cannot give each connection its own cookie and query list, which this needs.
import { Agent, request } from 'node:http';
import type { LoadResult } from './load';
import { spread } from './stats';

export interface Person {
  headers: Record<string, string>;
  /** Paths (with their query) this person asks for in turn. */
  paths: readonly string[];
}

/** One GET; resolves with its status and milliseconds from send to the body's end. */
function timedGet(
  agent: Agent,
  url: URL,
  path: string,
  headers: Record<string, string>,
): Promise<{ status: number; ms: number }> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const req = request({ host: url.hostname, port: url.port, path, agent, headers }, (res) => {
      res.resume();
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          ms: Number(process.hrtime.bigint() - started) / 1e6,
        }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

/** Every person reads at once for `durationSeconds`; latency over all their requests. */
export async function peopleLoad(options: {
  base: string;
  people: readonly Person[];
  durationSeconds: number;
}): Promise<LoadResult> {
  const url = new URL(options.base);
  const latencies: number[] = [];
  let non2xx = 0;
  let errors = 0;
  const started = performance.now();
  const deadline = started + options.durationSeconds * 1000;
  await Promise.all(
    options.people.map(async (person, p) => {
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      // Each starts at a different place in its own list.
      let next = p;
      try {
        while (performance.now() < deadline) {
          const path = person.paths[next++ % person.paths.length] as string;
          try {
            const { status, ms } = await timedGet(agent, url, path, person.headers);
            latencies.push(ms);
            if (status < 200 || status >= 300) non2xx += 1;
          } catch {
            errors += 1;
          }
        }
      } finally {
        agent.destroy();
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    requestsPerSecond: latencies.length / seconds,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    requests: latencies.length,
    non2xx,
    errors,
  };
}

/**
 * Latency at one connection over distinct paths, one after another: the median, with a
 * high-resolution clock (sub-millisecond budgets). Any non-2xx answer fails the measurement.
 */
export async function sequentialOver(options: {
  base: string;
  paths: readonly string[];
  requests: number;
  headers: Record<string, string>;
}): Promise<number> {
  const url = new URL(options.base);
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const samples: number[] = [];
  try {
    for (let i = -50; i < options.requests; i++) {
      const path = options.paths[(i + 50) % options.paths.length] as string;
      const { status, ms } = await timedGet(agent, url, path, options.headers);
      if (status < 200 || status >= 300) throw new Error(`status ${status} from ${path}`);
      if (i >= 0) samples.push(ms); // the first 50: warm-up
    }
  } finally {
    agent.destroy();
  }
  return spread(samples).median;
}
