import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

/** The SPA's initial-JavaScript budget, gzipped: what index.html loads before any route chunk. */
export const INITIAL_JS_BUDGET_BYTES = 120_000;

/** The JavaScript the first page load needs: the entry script and what index.html preloads. */
export function initialJavaScript(dist: string): {
  files: string[];
  gzipBytes: number;
  rawBytes: number;
} {
  const html = readFileSync(join(dist, 'index.html'), 'utf8');
  const files = [
    ...new Set(
      [
        ...html.matchAll(/<script[^>]+src="([^"]+\.js)"/g),
        ...html.matchAll(/<link[^>]+rel="modulepreload"[^>]+href="([^"]+\.js)"/g),
      ].map((m) => m[1] as string),
    ),
  ];
  let gzipBytes = 0;
  let rawBytes = 0;
  for (const file of files) {
    const content = readFileSync(join(dist, file.replace(/^\//, '')));
    rawBytes += content.length;
    gzipBytes += gzipSync(content, { level: 9 }).length;
  }
  return { files, gzipBytes, rawBytes };
}
