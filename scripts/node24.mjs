#!/usr/bin/env node
// Node 24, the current LTS line, from the npm registry's `node` package (it carries the
// binary: no download outside the registry). `pnpm test` runs the `bff-runtime` project on it
// after the other projects on the machine's Node; `pnpm test:node24 [vitest options]` runs
// the whole suite (or the `--project`s given) on it alone. `--node node@22.23.3` first takes
// another version from the registry the same way (by hand: CI runs Node 24).
//
// Everything those tests start runs on Node 24 too: its directory comes first on PATH, so the
// product the end-to-end tests start (`npx pnpm start`) and every `node` a test spawns is it.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const NODE_24 = 'node@24.21.0';
const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** That Node's binary (installed into npm's cache on first use) and an environment running it. */
export function nodeFromRegistry(spec = NODE_24) {
  const found = spawnSync('npx', ['-y', '-p', spec, '-c', 'node -p process.execPath'], {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const binary = found.stdout?.trim();
  if (found.status !== 0 || !binary) {
    throw new Error(`could not install ${spec} from the npm registry (npx exited ${found.status})`);
  }
  const version = spawnSync(binary, ['--version'], { encoding: 'utf8' }).stdout.trim();
  if (!version.startsWith(`v${spec.slice('node@'.length)}`)) {
    throw new Error(`${binary} is ${version}, not ${spec}`);
  }
  return {
    binary,
    version,
    env: { ...process.env, PATH: `${dirname(binary)}:${process.env.PATH ?? ''}` },
  };
}

/** Runs Vitest on that Node with `args` (after `run`); its exit status. */
export function vitestOnNode(args, spec = NODE_24) {
  const { binary, version, env } = nodeFromRegistry(spec);
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
  const args = process.argv.slice(2);
  const at = args.indexOf('--node');
  const spec = at >= 0 ? args.splice(at, 2)[1] : NODE_24;
  if (!spec?.startsWith('node@')) throw new Error('--node takes a package spec: node@22.23.3');
  process.exit(vitestOnNode(args, spec));
}
