// @vitest-environment node
// The SPA reaches the BFF through its one client, derived from the contract: the lint rule
// (lint/spa-api-client.grit, run by `biome check` in `pnpm test`) refuses an API path or a cast
// of an answer anywhere else in the SPA's modules. `biome check .` proves the tree keeps it;
// this proves the rule can fail, on a crafted tree.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../../..');
const biome = join(root, 'node_modules/.bin/biome');
const run = promisify(execFile);

interface Report {
  diagnostics: { category: string; message: string; location: { path: string } }[];
}

const dirs: string[] = [];
afterAll(() =>
  Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true, maxRetries: 5 }))),
);

/** The plugin's findings on a tree of these files, as `path: what`. */
async function findings(files: Record<string, string>): Promise<string[]> {
  const dir = await mkdtemp(join(tmpdir(), 'spa-api-rule-'));
  dirs.push(dir);
  const config = { plugins: [join(root, 'lint/spa-api-client.grit')], linter: { enabled: true } };
  for (const [path, text] of Object.entries({ 'biome.json': JSON.stringify(config), ...files })) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  let stdout: string;
  try {
    ({ stdout } = await run(biome, ['lint', '--reporter=json', '.'], { cwd: dir }));
  } catch (error) {
    // biome exits non-zero when it finds errors; its report is still on stdout.
    stdout = (error as { stdout?: string }).stdout ?? '';
    if (!stdout) throw error;
  }
  const report = JSON.parse(stdout) as Report;
  return report.diagnostics
    .filter((d) => d.category === 'plugin')
    .map((d) => `${d.location.path}: ${d.message.startsWith('An API path') ? 'path' : 'cast'}`)
    .sort();
}

const offending = [
  "const list = '/api/cards';",
  `const one = (id: string) => \`/api/cards/\${id}\`;`,
  "const root = '/api';",
  "const other = '/apiary';",
  'export async function read(r: Response) { return (await r.json()) as { n: number }; }',
  'export async function text(r: Response) { return (await r.text()) as Lowercase<string>; }',
  "export async function card() { return (await api('cards.get')) as { id: 'x' }; }",
  'declare function api(name: string): Promise<unknown>;',
  'export const all = [list, one, root, other];',
].join('\n');

describe('the SPA’s API rule', () => {
  it('finds each API path and each cast of an answer in the SPA’s modules, and nothing else', async () => {
    const found = await findings({
      'apps/web/src/features/cards/api/get-card.ts': offending,
      // Where paths belong: the client, tests and their fakes, and outside the SPA.
      'apps/web/src/lib/api-client.ts': offending,
      'apps/web/src/features/cards/cards.test.ts': offending,
      'apps/web/src/test/server.ts': offending,
      'apps/web/src/features/alerts/test/fixtures.ts': offending,
      'apps/bff/src/features/cards/cards-endpoints.ts': offending,
    });
    const file = 'apps/web/src/features/cards/api/get-card.ts';
    expect(found).toEqual([
      `${file}: cast`,
      `${file}: cast`,
      `${file}: cast`,
      `${file}: path`,
      `${file}: path`,
      `${file}: path`,
    ]);
  }, 60_000);
});
