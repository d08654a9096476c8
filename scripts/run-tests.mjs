#!/usr/bin/env node
// `pnpm test`: everything a change must pass, in one command that works on a clean machine.
// 1. makes sure a headless Chromium exists for the browser flows, and redis-server, PostgreSQL
//    and haproxy for the store and replica tests (Debian's packages, as root),
// 2. typechecks and lints the workspace,
// 3. runs every Vitest project (unit, integration, component, end-to-end),
// 4. prints one summary line: "Tests: N passed, N failed, N skipped".
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureChromium } from './ensure-chromium.mjs';
import { ensureEngines } from './ensure-engines.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', ...options });
  return result.status ?? 1;
}

ensureChromium();
ensureEngines();

const bin = (name) => join(root, 'node_modules', '.bin', name);
console.log('\n== typecheck');
const projects = ['.', 'packages/shared', 'apps/card-service-sim', 'apps/bff', 'apps/web', 'bench'];
const typecheckFailed = projects
  .map((project) => run(bin('tsc'), ['-p', join(project, 'tsconfig.json')]))
  .some((status) => status !== 0);
console.log('\n== lint');
const lintFailed = run(bin('biome'), ['check', '.']) !== 0;

console.log('\n== tests');
mkdirSync(join(root, '.test-results'), { recursive: true });
const reportFile = join(root, '.test-results', 'vitest.json');
const vitestStatus = run(bin('vitest'), [
  'run',
  '--reporter=default',
  '--reporter=json',
  `--outputFile.json=${reportFile}`,
]);

let passed = 0;
let failed = 0;
let skipped = 0;
if (existsSync(reportFile)) {
  const report = JSON.parse(readFileSync(reportFile, 'utf8'));
  passed = report.numPassedTests ?? 0;
  failed = report.numFailedTests ?? 0;
  // A file that fails before any test runs (an import error) fails no test: count it.
  if (vitestStatus !== 0 && failed === 0) failed = Math.max(1, report.numFailedTestSuites ?? 0);
  skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
} else {
  failed = 1;
}
if (typecheckFailed) console.error('typecheck failed');
if (lintFailed) console.error('lint failed');
console.log(`\nTests: ${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(vitestStatus !== 0 || failed > 0 || typecheckFailed || lintFailed ? 1 : 0);
