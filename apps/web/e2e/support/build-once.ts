// The e2e project's global setup: the product built once for the run, as `pnpm start` builds it
// (`pnpm build`: the SPA, then the BFF's bundle), before any file starts its own product from
// that build (`pnpm start:built`, see product.ts). Built once, the files can run two at a time
// without one's build replacing the files another product is serving.
import { spawnSync } from 'node:child_process';
import { repoRoot } from './product';

export default function setup(): void {
  // As a person runs it: Vitest's NODE_ENV=test would make Vite build React's dev bundle.
  const { NODE_ENV: _testEnv, ...env } = process.env;
  const built = spawnSync('npx', ['-y', 'pnpm@10.34.9', 'build'], {
    cwd: repoRoot,
    env,
    encoding: 'utf8',
    timeout: 600_000,
  });
  if (built.status !== 0) {
    throw new Error(
      `pnpm build failed before the browser tests (exit ${built.status}):\n${built.stdout}\n${built.stderr}`,
    );
  }
}
