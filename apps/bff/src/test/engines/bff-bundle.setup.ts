// Vitest's global set-up for the BFF's projects: the bundle production runs
// (cli/bundle.ts, what `pnpm build` writes to dist/), written once for the run beside dist/
// (the same depth, so it finds apps/bff and its migrations as dist/ does), for the tests that
// start the BFF as its own process (bff-process.ts). Started from the bundle, a BFF reaches
// /healthz on 3.8–4.0 s of CPU against 6.5–6.8 under tsx's loader (decision 0005), and a run
// starts about 25. The bundle is made from the working tree at each run, so it is never stale.
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { writeBundle } from '../../cli/bundle';
// What the set-up provides (`bffBundle`), as the tests read it.
import type {} from './bff-bundle';
import { oncePerRun } from './once-per-run';

const bffDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

export default async function setup(project: TestProject) {
  const outdir = join(bffDir, `.test-bundle-${process.pid}`);
  const { made, teardown } = await oncePerRun(
    'cardConsoleTestBffBundle',
    () => writeBundle(outdir).then(() => outdir),
    (dir) => rmSync(dir, { recursive: true, force: true, maxRetries: 5 }),
  );
  project.provide('bffBundle', made);
  return teardown;
}
