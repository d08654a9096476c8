import { Agent, request } from 'node:http';
import { type Spread, spread } from './stats';

/**
 * Latency with one connection, measured here with a high-resolution clock: autocannon's
 * histogram has millisecond resolution, too coarse for a sub-millisecond budget.
 */
export async function sequentialLatency(options: {
  url: string;
  requests: number;
  headers?: Record<string, string>;
}): Promise<Spread & { p50: number }> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const url = new URL(options.url);
  const once = () =>
    new Promise<number>((resolve, reject) => {
      const started = process.hrtime.bigint();
      const req = request(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname + url.search,
          agent,
          headers: options.headers,
        },
        (res) => {
          res.resume();
          res.on('end', () => {
            if ((res.statusCode ?? 0) >= 300)
              reject(new Error(`status ${res.statusCode} from ${options.url}`));
            else resolve(Number(process.hrtime.bigint() - started) / 1e6);
          });
        },
      );
      req.on('error', reject);
      req.end();
    });
  for (let i = 0; i < 50; i++) await once(); // warm-up
  const samples: number[] = [];
  for (let i = 0; i < options.requests; i++) samples.push(await once());
  agent.destroy();
  const s = spread(samples);
  return { ...s, p50: s.median };
}
