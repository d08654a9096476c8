// `pnpm --filter @card-console/bff build`: bundles the BFF's own TypeScript (and the workspace
// packages it imports) for `node`, so production runs without tsx's loader thread and
// on-the-fly compilation (less memory, no source-map rewriting of stacks). Four entry points:
// dist/index.js, production's (src/index.ts, what `serve` and the image run), dist/demo.js,
// the demo's (src/demo/main.ts, what `pnpm start` runs), which alone reaches the simulator and
// oidc-provider, and dist/migrate.js, `pnpm migrate` in the image (compose's `migrate` job), and
// dist/receipt-reader.js, the receipt reader's process, which both fork (features/receipt-inbox). Code both use is in shared chunks; the demo's own code in chunks of its own.
// npm dependencies stay external: they load from node_modules exactly as under tsx.
// `--outdir <dir>` writes it elsewhere (a test's own copy; dist/ is what `serve` runs).
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { type BuildOptions, build, type Plugin } from 'esbuild';

const bffDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** The bundle's entry points: output name (dist/<name>.js) → source. */
export const entryPoints = {
  index: join(bffDir, 'src', 'index.ts'),
  demo: join(bffDir, 'src', 'demo', 'main.ts'),
  migrate: join(bffDir, 'src', 'cli', 'migrate.ts'),
  'receipt-reader': join(bffDir, 'src', 'features', 'receipt-inbox', 'reading', 'reader-child.ts'),
  'embedded-engine-worker': join(bffDir, 'src', 'platform', 'sql', 'embedded-engine-worker.mjs'),
};

const npmPackagesExternal: Plugin = {
  name: 'npm-packages-external',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, (args) =>
      args.path.startsWith('@card-console/') ? undefined : { external: true },
    );
  },
};

/** How every entry is built; production-dependencies.test.ts builds index.ts with the same. */
export const bundleOptions = {
  bundle: true,
  // Code loaded only when configured (PostgreSQL, single sign-on) is in chunks of its own.
  splitting: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: 'linked',
  logLevel: 'warning',
  plugins: [npmPackagesExternal],
} satisfies BuildOptions;

/**
 * Writes the bundle into `outdir`, emptied first: every entry point, with the commit checked
 * out (for the card_console_build_info series; none outside a git checkout).
 */
export async function writeBundle(outdir: string): Promise<void> {
  const head = spawnSync('git', ['rev-parse', '--verify', 'HEAD'], {
    cwd: bffDir,
    encoding: 'utf8',
  });
  const commit = head.status === 0 ? head.stdout.trim() : '';
  // Chunk names carry content hashes: start clean so old chunks do not pile up.
  rmSync(outdir, { recursive: true, force: true, maxRetries: 5 });
  await build({
    ...bundleOptions,
    entryPoints,
    outdir,
    define: { __CARD_CONSOLE_COMMIT__: JSON.stringify(commit) },
  });
}

// Run as a script (not when a test imports the options above).
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { outdir: { type: 'string' } } });
  await writeBundle(values.outdir ? resolve(values.outdir) : join(bffDir, 'dist'));
}
