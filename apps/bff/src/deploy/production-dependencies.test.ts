// What production loads: the bundle `pnpm build` makes (cli/bundle.ts), walked from dist/index.js
// (the production command of docs/operations.md, the image's CMD) through every chunk it
// imports, statically or dynamically, by esbuild's metafile. None of it is demo or build
// tooling, and the packages it pulls in are exactly the BFF's production `dependencies`: what
// the image's `--prod` install holds. The demo entry point (dist/demo.js) reaches the simulator and oidc-provider, from
// devDependencies; the same walk from it finds them, so the walk is not blind.
import { readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Metafile } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';
import { bundleOptions, entryPoints } from '../cli/bundle';

const bffDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const pkg = JSON.parse(readFileSync(join(bffDir, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};
const demoAndBuildTools = ['oidc-provider', '@card-console/card-service-sim', 'esbuild', 'tsx'];
const builtins = new Set(builtinModules);

/** `express`, `@simplewebauthn/server` from `express/lib/x.js`, `@simplewebauthn/server/helpers`. */
function packageName(specifier: string): string {
  const parts = specifier.split('/');
  return (specifier.startsWith('@') ? parts.slice(0, 2) : parts.slice(0, 1)).join('/');
}

/** The name in the package.json nearest above `file` (an input of the bundle). */
function owningPackage(file: string): string {
  for (let dir = dirname(resolve(bffDir, file)); dir !== dirname(dir); dir = dirname(dir)) {
    try {
      return (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name: string }).name;
    } catch {
      // no package.json here: one folder up
    }
  }
  throw new Error(`no package.json above ${file}`);
}

/** The packages the output `entry` loads: npm packages it imports, workspace packages bundled in. */
function packagesLoadedBy(metafile: Metafile, entry: string) {
  const npm = new Set<string>();
  const bundled = new Set<string>();
  const seen = new Set<string>();
  const walk = (output: string) => {
    if (seen.has(output)) return;
    seen.add(output);
    const { imports, inputs } = metafile.outputs[output] ?? { imports: [], inputs: {} };
    for (const imported of imports) {
      if (!imported.external) walk(imported.path);
      else if (!imported.path.startsWith('node:') && !builtins.has(imported.path))
        npm.add(packageName(imported.path));
    }
    for (const input of Object.keys(inputs)) bundled.add(owningPackage(input));
  };
  walk(entry);
  if (seen.size === 1 && !metafile.outputs[entry]) throw new Error(`no output ${entry}`);
  bundled.delete('@card-console/bff');
  return { npm, bundled, all: new Set([...npm, ...bundled]) };
}

let metafile: Metafile;
beforeAll(async () => {
  // The same build as `pnpm build`, held in memory (dist/ is left alone).
  ({ metafile } = await build({
    ...bundleOptions,
    entryPoints,
    absWorkingDir: bffDir,
    outdir: join(tmpdir(), 'card-console-bundle-not-written'),
    write: false,
    metafile: true,
    logLevel: 'error',
  }));
}, 60_000);

const outputOf = (name: string) => {
  const found = Object.entries(metafile.outputs).find(
    ([, output]) => output.entryPoint === `src/${name}`,
  );
  if (!found) throw new Error(`no output for src/${name}`);
  return found[0];
};

describe('the production bundle (dist/index.js and the chunks it loads)', () => {
  it('is made from src/index.ts, and the demo bundle from src/demo/main.ts', () => {
    expect(outputOf('index.ts').endsWith('/index.js')).toBe(true);
    expect(outputOf('demo/main.ts').endsWith('/demo.js')).toBe(true);
  });

  it('loads neither the simulator nor oidc-provider (not even dynamically), nor a build tool', () => {
    const { all } = packagesLoadedBy(metafile, outputOf('index.ts'));
    for (const name of demoAndBuildTools) expect(all, name).not.toContain(name);
  });

  it('holds none of src/demo/ in any chunk it loads', () => {
    const reachable = new Set<string>();
    const walk = (output: string) => {
      if (reachable.has(output)) return;
      reachable.add(output);
      for (const imported of metafile.outputs[output]?.imports ?? [])
        if (!imported.external) walk(imported.path);
    };
    walk(outputOf('index.ts'));
    const inputs = [...reachable].flatMap((output) =>
      Object.keys(metafile.outputs[output]?.inputs ?? {}),
    );
    expect(inputs.length).toBeGreaterThan(50);
    expect(inputs.filter((input) => input.startsWith('src/demo/'))).toEqual([]);
  });

  it("loads exactly the package.json's production dependencies: each one it imports is listed, and each listed one is used", () => {
    // With the receipt reader's process (dist/receipt-reader.js), which index.js forks.
    const all = new Set([
      ...packagesLoadedBy(metafile, outputOf('index.ts')).all,
      ...packagesLoadedBy(metafile, outputOf('features/receipt-inbox/reading/reader-child.ts')).all,
    ]);
    expect(all).toContain('express');
    expect([...all].sort()).toEqual(Object.keys(pkg.dependencies).sort());
  });

  it('keeps the demo and build tools in devDependencies, which `pnpm install` (not the image) installs', () => {
    for (const name of demoAndBuildTools) {
      expect(Object.keys(pkg.dependencies), name).not.toContain(name);
      expect(Object.keys(pkg.devDependencies), name).toContain(name);
    }
  });
});

describe('the demo bundle (dist/demo.js)', () => {
  it('is where the simulator and oidc-provider are loaded (the walk above would see them)', () => {
    const { npm, bundled } = packagesLoadedBy(metafile, outputOf('demo/main.ts'));
    expect(npm).toContain('oidc-provider');
    expect(bundled).toContain('@card-console/card-service-sim');
  });
});
