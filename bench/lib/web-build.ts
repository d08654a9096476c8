import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { repoRoot } from './child';

export const webDist = join(repoRoot, 'apps', 'web', 'dist');
let built = false;

/** Builds the SPA once per benchmark run, as `pnpm start` does. */
export function ensureWebBuild(): void {
  if (built) return;
  const vite = join(repoRoot, 'apps', 'web', 'node_modules', '.bin', 'vite');
  const result = spawnSync(vite, ['build'], { cwd: join(repoRoot, 'apps', 'web'), encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`web build failed:\n${result.stdout}\n${result.stderr}`);
  built = true;
}

/** The JavaScript the first page load needs: the entry script and what index.html preloads. */
export function initialJavaScript(): { files: string[]; gzipBytes: number; rawBytes: number } {
  const html = readFileSync(join(webDist, 'index.html'), 'utf8');
  const files = [
    ...html.matchAll(/<script[^>]+src="([^"]+\.js)"/g),
    ...html.matchAll(/<link[^>]+rel="modulepreload"[^>]+href="([^"]+\.js)"/g),
  ].map((m) => m[1] as string);
  let gzipBytes = 0;
  let rawBytes = 0;
  for (const file of new Set(files)) {
    const content = readFileSync(join(webDist, file.replace(/^\//, '')));
    rawBytes += content.length;
    gzipBytes += gzipSync(content, { level: 9 }).length;
  }
  return { files: [...new Set(files)], gzipBytes, rawBytes };
}
