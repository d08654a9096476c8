import { execFileSync } from 'node:child_process';
import { existsSync, promises as fs, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it, vi } from 'vitest';

// `pnpm test:mutation` runs the BFF's tests in a copy of the repository that Stryker makes from
// stryker.config.mjs. A test that reads a file the copy lacks fails its dry run, and nothing
// else notices (it runs by hand). This checks, with Stryker's own file selection, that the copy
// holds every file git keeps: the few milliseconds of a crawl instead of a whole dry run.

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

type StrykerConfig = { ignorePatterns: string[]; [option: string]: unknown };
type ConfigModule = { default: StrykerConfig; gitIgnoredPaths: () => string[] };

/** Stryker's project reader: not exported, so its file is loaded by path (Stryker is pinned). */
async function strykerInternals() {
  const core = dirname(createRequire(import.meta.url).resolve('@stryker-mutator/core'));
  const load = (path: string) => import(pathToFileURL(join(core, path)).href);
  // One after the other, the validator first: its module computes the defaults as it loads,
  // from fs/index.js, which the reader's import cycle would leave unfinished (on Node 24,
  // loading both at once reads MUTATION_RANGE_REGEX before it is set).
  const { defaultOptions } = await load('config/options-validator.js');
  const { ProjectReader } = await load('fs/project-reader.js');
  return { ProjectReader, defaultOptions };
}

const quiet = { debug() {}, info() {}, warn() {}, isDebugEnabled: () => false };

/** The files Stryker would copy into its sandbox under these options, relative to the root. */
async function sandboxFiles(config: StrykerConfig): Promise<Set<string>> {
  const { ProjectReader, defaultOptions } = await strykerInternals();
  const reader = new ProjectReader(fs, quiet, { ...defaultOptions, ...config });
  // The reader crawls from the working directory, as Stryker runs from the root.
  const cwd = vi.spyOn(process, 'cwd').mockReturnValue(root);
  try {
    const files: string[] = await reader.resolveInputFileNames();
    return new Set(files.map((file) => relative(root, file)));
  } finally {
    cwd.mockRestore();
  }
}

/** Files git keeps, tracked or new, that the sandbox would not hold. */
async function filesLeftOut(config: StrykerConfig): Promise<string[]> {
  const kept = execFileSync(
    'git',
    ['ls-files', '-z', '--cached', '--others', '--exclude-standard'],
    { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
  )
    .split('\0')
    .filter(Boolean);
  const copied = await sandboxFiles(config);
  // Listed first, checked after: a file deleted meanwhile (another test's) is no gap.
  return kept.filter((file) => !copied.has(file) && existsSync(join(root, file)));
}

async function strykerConfig(): Promise<ConfigModule> {
  return (await import(pathToFileURL(join(root, 'stryker.config.mjs')).href)) as ConfigModule;
}

describe("Stryker's sandbox for `pnpm test:mutation`", () => {
  it('holds every file git keeps, so a BFF test that reads one passes there too', async () => {
    const { default: config } = await strykerConfig();
    expect(await filesLeftOut(config)).toEqual([]);
  });

  it("with a hand-kept ignore list that names apps/web, would lack the SPA's route tree: the gap this catches", async () => {
    const { default: config } = await strykerConfig();
    const handKept = {
      ...config,
      ignorePatterns: ['apps/web', 'bench', '.test-results', '**/.data', '**/dist'],
    };
    expect(await filesLeftOut(handKept)).toContain('apps/web/src/routeTree.gen.ts');
  });

  it('leaves out what git ignores (here a file under .test-results), so the copy stays the size of a checkout', async () => {
    const { default: config, gitIgnoredPaths } = await strykerConfig();
    mkdirSync(join(root, '.test-results'), { recursive: true });
    const dir = mkdtempSync(join(root, '.test-results', 'sandbox-check-'));
    const ignored = relative(root, join(dir, 'left-over.json'));
    writeFileSync(join(root, ignored), '{}');
    try {
      const copied = await sandboxFiles({ ...config, ignorePatterns: gitIgnoredPaths() });
      expect(copied.has(ignored)).toBe(false);
      expect(copied.has('apps/web/src/routeTree.gen.ts')).toBe(true);
      // Without the list the file would be copied: the check above can fail.
      expect((await sandboxFiles({ ...config, ignorePatterns: [] })).has(ignored)).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
    }
  });
});
