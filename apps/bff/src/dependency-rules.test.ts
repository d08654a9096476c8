// The arrows between layers point one way (`.dependency-cruiser.cjs`, docs/architecture.md):
// core ← platform ← upstream ← features ← http ← app, in the BFF, a feature using another only
// through its index.ts; lib and components ← features ← app (the shell) and routes in the SPA,
// a feature or the shell using a feature only through its api/ and index.ts.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../../..');
const config = join(root, '.dependency-cruiser.cjs');
const depcruise = join(root, 'node_modules/.bin/depcruise');
const run = promisify(execFile);

interface Verdict {
  summary: { error: number; violations: { rule: { name: string }; from: string; to: string }[] };
}

async function cruise(cwd: string, paths: string[]): Promise<Verdict> {
  try {
    const { stdout } = await run(
      depcruise,
      [...paths, '--config', config, '--output-type', 'json'],
      { cwd, maxBuffer: 256 * 1024 * 1024 },
    );
    return JSON.parse(stdout) as Verdict;
  } catch (error) {
    // depcruise exits non-zero when it finds violations; its JSON is still on stdout.
    const stdout = (error as { stdout?: string }).stdout;
    if (!stdout) throw error;
    return JSON.parse(stdout) as Verdict;
  }
}

describe('the dependency rule', () => {
  it('holds in the BFF and the SPA', async () => {
    const verdict = await cruise(root, ['apps/bff/src', 'apps/web/src']);
    const found = verdict.summary.violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`);
    expect(found).toEqual([]);
  }, 120_000);

  describe('on a tree that breaks it', () => {
    const dirs: string[] = [];
    afterAll(() =>
      Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true, maxRetries: 5 }))),
    );

    async function crafted(files: Record<string, string>): Promise<string> {
      const dir = await mkdtemp(join(tmpdir(), 'dependency-rule-'));
      dirs.push(dir);
      const tsconfig =
        '{ "compilerOptions": { "module": "ESNext", "moduleResolution": "Bundler" } }';
      for (const [path, text] of Object.entries({ 'tsconfig.base.json': tsconfig, ...files })) {
        await mkdir(dirname(join(dir, path)), { recursive: true });
        await writeFile(join(dir, path), text);
      }
      return dir;
    }

    it('names each arrow that points the wrong way', async () => {
      const dir = await crafted({
        'apps/bff/src/core/clock.ts':
          "import { router } from '../http/router';\nexport const a = router;\n",
        'apps/bff/src/http/router.ts': 'export const router = 1;\n',
        'apps/bff/src/features/cards/cards.ts':
          "import { router } from '../../http/router';\nexport const b = router;\n",
        'apps/web/src/features/audit/screen.tsx':
          "import { Field } from '../cards/components/field';\nexport const c = Field;\n",
        'apps/web/src/features/cards/components/field.tsx': 'export const Field = 1;\n',
        'apps/web/src/features/cards/index.ts': "export { Field } from './components/field';\n",
        'apps/web/src/features/overview/screen.tsx':
          "import { Field } from '../cards';\nexport const d = Field;\n",
        // The shell composes features through their api/ and index.ts; no feature imports it.
        'apps/web/src/app/shell.tsx':
          "import { Field } from '../features/cards/components/field';\nexport const s = Field;\n",
        'apps/web/src/app/nav.tsx':
          "import { Field } from '../features/cards';\nexport const n = Field;\n",
        'apps/web/src/features/alerts/bell.tsx':
          "import { n } from '../../app/nav';\nexport const b = n;\n",
      });
      const verdict = await cruise(dir, ['apps/bff/src', 'apps/web/src']);
      expect(verdict.summary.violations.map((v) => [v.rule.name, v.from]).sort()).toEqual([
        ['bff-core-imports-nothing-above', 'apps/bff/src/core/clock.ts'],
        ['bff-features-below-http', 'apps/bff/src/features/cards/cards.ts'],
        ['web-app-uses-features-through-their-api', 'apps/web/src/app/shell.tsx'],
        ['web-features-below-routes', 'apps/web/src/features/alerts/bell.tsx'],
        ['web-features-talk-through-their-api', 'apps/web/src/features/audit/screen.tsx'],
      ]);
    }, 120_000);

    it("names a BFF feature reaching into another's files, in its code or its tests", async () => {
      const dir = await crafted({
        'apps/bff/src/features/feature-deps.ts': 'export type FeatureDeps = { a: 1 };\n',
        'apps/bff/src/features/transaction-index/window.ts': 'export const window = 1;\n',
        'apps/bff/src/features/transaction-index/index.ts': "export { window } from './window';\n",
        'apps/bff/src/features/transaction-index/window.test.ts':
          "import { window } from './window';\nexport const t = window;\n",
        'apps/bff/src/features/alerts/sync.ts':
          "import { window } from '../transaction-index/window';\nexport const e = window;\n",
        'apps/bff/src/features/people/people.test.ts':
          "import { window } from '../transaction-index/window';\nexport const t = window;\n",
        'apps/bff/src/features/overview/overview.ts':
          "import type { FeatureDeps } from '../feature-deps';\nimport { window } from '../transaction-index';\nexport const f = (d: FeatureDeps) => [d, window];\n",
        // A cycle only through `import type` is erased at run time; one through values is not.
        'apps/bff/src/features/cards/a.ts': "import { b } from './b';\nexport const a = () => b;\n",
        'apps/bff/src/features/cards/b.ts': "import { a } from './a';\nexport const b = () => a;\n",
        'apps/bff/src/features/cards/c.ts':
          "import type { D } from './d';\nexport const c = (d: D) => d;\n",
        'apps/bff/src/features/cards/d.ts': "import { c } from './c';\nexport type D = typeof c;\n",
      });
      const verdict = await cruise(dir, ['apps/bff/src']);
      expect(verdict.summary.violations.map((v) => [v.rule.name, v.from]).sort()).toEqual([
        ['bff-features-talk-through-their-index', 'apps/bff/src/features/alerts/sync.ts'],
        ['bff-features-talk-through-their-index', 'apps/bff/src/features/people/people.test.ts'],
        ['no-circular', 'apps/bff/src/features/cards/a.ts'],
      ]);
    }, 120_000);
  });
});
