// `pnpm --filter @card-console/bff build`: bundles the BFF's own TypeScript (and the workspace
// packages it imports) into dist/index.js for `node`, so production runs without tsx's
// loader thread and on-the-fly compilation (less memory, no source-map rewriting of stacks).
// npm dependencies stay external: they load from node_modules exactly as under tsx.
// `--outdir <dir>` writes it elsewhere (a test's own copy; dist/ is what `serve` runs).
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { build, type Plugin } from 'esbuild';

const bffDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const { values } = parseArgs({ options: { outdir: { type: 'string' } } });
const outdir = values.outdir ? resolve(values.outdir) : join(bffDir, 'dist');

const npmPackagesExternal: Plugin = {
  name: 'npm-packages-external',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, (args) =>
      args.path.startsWith('@card-console/') ? undefined : { external: true },
    );
  },
};

// The commit built, for the card_console_build_info series; none outside a git checkout.
const head = spawnSync('git', ['rev-parse', '--verify', 'HEAD'], { cwd: bffDir, encoding: 'utf8' });
const commit = head.status === 0 ? head.stdout.trim() : '';

// Chunk names carry content hashes: start clean so old chunks do not pile up.
rmSync(outdir, { recursive: true, force: true });
await build({
  entryPoints: [join(bffDir, 'src', 'index.ts')],
  outdir,
  bundle: true,
  // Demo-only code (the in-process simulator) is a separate chunk, loaded only in demo mode.
  splitting: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: 'linked',
  logLevel: 'warning',
  plugins: [npmPackagesExternal],
  define: { __CARD_CONSOLE_COMMIT__: JSON.stringify(commit) },
});
