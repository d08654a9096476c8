import autocannon from 'autocannon';

export interface LoadResult {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  non2xx: number;
  errors: number;
}

/** What the k-th request of a load asks for: its path (with query) and its headers. */
export type RequestAt = (k: number) => { path: string; headers: Record<string, string> };

/**
 * Drives a URL with autocannon and returns the figures we report. With `requestAt`, every
 * request is built afresh from a counter shared by all connections (as a balancer's
 * connections carry many people's requests): the requests in flight at any moment are
 * consecutive, so a mix of distinct queries and people keeps any two of them apart.
 */
export async function load(options: {
  url: string;
  connections: number;
  durationSeconds: number;
  headers?: Record<string, string>;
  requestAt?: RequestAt;
}): Promise<LoadResult> {
  const { requestAt } = options;
  let k = 0;
  const result = await autocannon({
    url: options.url,
    connections: options.connections,
    duration: options.durationSeconds,
    headers: options.headers ?? {},
    pipelining: 1,
    ...(requestAt
      ? {
          requests: [
            {
              method: 'GET',
              setupRequest: (req: autocannon.Request) => ({ ...req, ...requestAt(k++) }),
            },
          ],
        }
      : {}),
  });
  return {
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
}

/** The figures a benchmark keeps per round of load, one series each. */
export interface LoadSeries {
  rps: number[];
  p50: number[];
  p99: number[];
  bad: number;
}

/** Adds one round's result to a target's series. */
export function recordLoad(into: LoadSeries, r: LoadResult): void {
  into.rps.push(r.requestsPerSecond);
  into.p50.push(r.p50Ms);
  into.p99.push(r.p99Ms);
  into.bad += r.non2xx + r.errors;
}
