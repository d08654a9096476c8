#!/usr/bin/env node
// Node 24, the current LTS line, from the npm registry's `node` package (it carries the
// binary: no download outside the registry). `pnpm test` runs the BFF and end-to-end projects
// on it after the whole suite on the machine's Node; `pnpm test:node24 [vitest options]` runs
// the whole suite (or the `--project`s given) on it alone.
//
// Everything those tests start runs on Node 24 too: its directory comes first on PATH, so the
// product the end-to-end tests start (`npx pnpm start`) and every `node` a test spawns is it.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const NODE_24 = 'node@24.21.0';
const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The Node 24 binary (installed into npm's cache on first use) and an environment running it. */
export function node24() {
  const found = spawnSync('npx', ['-y', '-p', NODE_24, '-c', 'node -p process.execPath'], {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const binary = found.stdout?.trim();
  if (found.status !== 0 || !binary) {
    throw new Error(
      `could not install ${NODE_24} from the npm registry (npx exited ${found.status})`,
    );
  }
  const version = spawnSync(binary, ['--version'], { encoding: 'utf8' }).stdout.trim();
  if (!version.startsWith('v24.')) throw new Error(`${binary} is ${version}, not Node 24`);
  return {
    binary,
    version,
    env: { ...process.env, PATH: `${dirname(binary)}:${process.env.PATH ?? ''}` },
  };
}

/** Runs Vitest on Node 24 with `args` (after `run`); its exit status. */
export function vitestOnNode24(args) {
  const { binary, version, env } = node24();
  console.log(`\n== tests on Node ${version}: vitest run ${args.join(' ')}`);
  const result = spawnSync(
    binary,
    [join(root, 'node_modules', 'vitest', 'vitest.mjs'), 'run', ...args],
    {
      cwd: root,
      env,
      stdio: 'inherit',
    },
  );
  return result.status ?? 1;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exit(vitestOnNode24(process.argv.slice(2)));
}
