// The e2e project's global setup: the product built once for the run, as `pnpm start` builds it
// (`pnpm build`: the SPA, then the BFF's bundle), before any file starts its own product from
// that build (`pnpm start:built`, see product.ts). Built once, the files can run two at a time
// without one's build replacing the files another product is serving. And one new embedded
// cluster, made as the product makes its own at a first start, that each product's data
// directory starts with (product.ts, EMBEDDED_DIR). Its folder holds the run's other scratch
// files too (users files, users-file.ts), removed with it when the run ends.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { pnpmCommand, repoRoot } from './product';

export default function setup(project: TestProject): () => void {
  // As a person runs it: Vitest's NODE_ENV=test would make Vite build React's dev bundle.
  const { NODE_ENV: _testEnv, ...env } = process.env;
  const [command, args] = pnpmCommand(['build']);
  const built = spawnSync(command, args, {
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
  // PGlite as the BFF resolves it, opening a directory as the BFF's first start does.
  const pglite = createRequire(join(repoRoot, 'apps/bff/package.json')).resolve(
    '@electric-sql/pglite',
  );
  const dir = mkdtempSync(join(tmpdir(), 'card-console-e2e-cluster-'));
  const cluster = join(dir, 'cluster');
  execFileSync(
    process.execPath,
    [
      '-e',
      `require(${JSON.stringify(pglite)}).PGlite.create({ dataDir: ${JSON.stringify(cluster)} }).then((db) => db.close())`,
    ],
    { timeout: 120_000 },
  );
  project.provide('embeddedCluster', cluster);
  project.provide('scratchDir', dir);
  return () => rmSync(dir, { recursive: true, force: true });
}
