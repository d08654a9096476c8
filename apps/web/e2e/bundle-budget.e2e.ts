// A deterministic size check, not a timing: the production build's initial JavaScript stays
// within budget. Builds into a temporary folder so it depends on no other test.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';
import { INITIAL_JS_BUDGET_BYTES, initialJavaScript } from './support/initial-js';

const webDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const outDir = mkdtempSync(join(tmpdir(), 'cc-web-budget-'));
afterAll(() => rmSync(outDir, { recursive: true, force: true, maxRetries: 5 }));

it('keeps the initial JavaScript of the production build within its budget (120 kB gzipped)', () => {
  const vite = join(webDir, 'node_modules', '.bin', 'vite');
  const build = spawnSync(vite, ['build', '--outDir', outDir, '--emptyOutDir'], {
    cwd: webDir,
    encoding: 'utf8',
    // Vitest sets NODE_ENV=test, which would make Vite build React's development bundle.
    env: { ...process.env, NODE_ENV: 'production' },
  });
  expect(build.status, build.stderr).toBe(0);
  const initial = initialJavaScript(outDir);
  console.log(
    `initial JavaScript: ${initial.gzipBytes} bytes gzipped in ${initial.files.length} files`,
  );
  expect(initial.files.length).toBeGreaterThan(0);
  expect(initial.gzipBytes).toBeLessThanOrEqual(INITIAL_JS_BUDGET_BYTES);
});
