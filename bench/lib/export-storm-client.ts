// The export storm's client, run in its own process (`runTsToEnd`) so that streaming the
// exports never delays the process that times other people's reads. URL, COOKIE, COUNT
// exports at once, each read and thrown away; the ones still running after MAX_MS are cut
// (hung up, as a closed tab would). Prints one JSON line: each export's outcome.
import http from 'node:http';

export interface ExportOutcome {
  status: number;
  /** The body arrived whole. */
  complete: boolean;
  /** Hung up by this client at MAX_MS, not ended by the server. */
  cut: boolean;
  bytes: number;
}

const url = process.env.URL as string;
const headers = { cookie: process.env.COOKIE as string, 'x-csrf': '1' };
const count = Number(process.env.COUNT ?? 20);
const maxMs = Number(process.env.MAX_MS ?? 12_000);

let cutting = false;
const requests: http.ClientRequest[] = [];
const outcomes = Array.from(
  { length: count },
  () =>
    new Promise<ExportOutcome>((resolve) => {
      let bytes = 0;
      const req = http.get(url, { headers, agent: false }, (res) => {
        const end = () =>
          resolve({ status: res.statusCode ?? 0, complete: res.complete, cut: cutting, bytes });
        res.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
        });
        res.on('end', end);
        res.on('close', end);
        res.on('error', end);
      });
      req.on('error', () => resolve({ status: 0, complete: false, cut: cutting, bytes }));
      requests.push(req);
    }),
);
const timer = setTimeout(() => {
  cutting = true;
  for (const req of requests) req.destroy();
}, maxMs);
const results = await Promise.all(outcomes);
clearTimeout(timer);
process.stdout.write(`${JSON.stringify(results)}\n`, () => process.exit(0));
