// The arrows between layers point one way (`.dependency-cruiser.cjs`, docs/architecture.md):
// core ← platform ← upstream ← features ← http ← app, in the BFF; lib and components ←
// features ← routes in the SPA, a feature using another only through its api/ and index.ts.
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
    let dir: string;
    afterAll(() => rm(dir, { recursive: true, force: true }));

    it('names each arrow that points the wrong way', async () => {
      dir = await mkdtemp(join(tmpdir(), 'dependency-rule-'));
      const files: Record<string, string> = {
        'tsconfig.base.json':
          '{ "compilerOptions": { "module": "ESNext", "moduleResolution": "Bundler" } }',
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
      };
      for (const [path, text] of Object.entries(files)) {
        await mkdir(dirname(join(dir, path)), { recursive: true });
        await writeFile(join(dir, path), text);
      }
      const verdict = await cruise(dir, ['apps/bff/src', 'apps/web/src']);
      expect(verdict.summary.violations.map((v) => [v.rule.name, v.from]).sort()).toEqual([
        ['bff-core-imports-nothing-above', 'apps/bff/src/core/clock.ts'],
        ['bff-features-below-http', 'apps/bff/src/features/cards/cards.ts'],
        ['web-features-talk-through-their-api', 'apps/web/src/features/audit/screen.tsx'],
      ]);
    }, 120_000);
  });
});
