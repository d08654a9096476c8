import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { initialJavaScript as measureInitialJavaScript } from '../../apps/web/e2e/support/initial-js';
import { repoRoot } from './child';

export const webDist = join(repoRoot, 'apps', 'web', 'dist');
let built = false;

/** Builds the SPA once per benchmark run, as `pnpm start` does. */
export function ensureWebBuild(): void {
  if (built) return;
  const vite = join(repoRoot, 'apps', 'web', 'node_modules', '.bin', 'vite');
  const result = spawnSync(vite, ['build'], {
    cwd: join(repoRoot, 'apps', 'web'),
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(`web build failed:\n${result.stdout}\n${result.stderr}`);
  built = true;
}

/** The initial JavaScript of the current build (the same measure CI's budget check uses). */
export function initialJavaScript() {
  return measureInitialJavaScript(webDist);
}
