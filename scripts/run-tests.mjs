#!/usr/bin/env node
// `pnpm test`: everything a change must pass, in one command that works on a clean machine.
// 1. makes sure a headless Chromium exists for the browser flows, and PostgreSQL and haproxy
//    for the store and replica tests (Debian's packages, as root),
// 2. typechecks and lints the workspace,
// 3. runs every test file once, at least two at a time (decision 0005): the BFF's server, stores,
//    engines, processes and deployment (the `bff-runtime` project) on Node 24, the image's
//    runtime (scripts/node24.mjs), and every other project on the machine's Node,
// 4. prints one summary line over both: "Tests: N passed, N failed, N skipped".
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureChromium } from './ensure-chromium.mjs';
import { ensureEngines } from './ensure-engines.mjs';
import { vitestOnNode } from './node24.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', ...options });
  return result.status ?? 1;
}

ensureChromium();
ensureEngines();

const bin = (name) => join(root, 'node_modules', '.bin', name);
console.log('\n== typecheck');
// Longest first, so the two longest run side by side.
const projects = ['apps/bff', 'apps/web', 'bench', 'apps/card-service-sim', 'packages/shared', '.'];
/** Runs `command` with `args` as a child; its exit status (1 when it could not start). */
function runAsync(command, args) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, stdio: 'inherit' });
    child.on('error', () => resolve(1));
    child.on('exit', (code) => resolve(code ?? 1));
  });
}
// Each tsc is one thread: as many at a time as the machine has cores (a quarter of CI's minute
// of typechecking on two cores).
const pending = [...projects];
const statuses = [];
await Promise.all(
  Array.from(
    { length: Math.min(projects.length, Math.max(2, availableParallelism())) },
    async () => {
      for (let project = pending.shift(); project; project = pending.shift()) {
        statuses.push(await runAsync(bin('tsc'), ['-p', join(project, 'tsconfig.json')]));
      }
    },
  ),
);
const typecheckFailed = statuses.some((status) => status !== 0);
console.log('\n== lint');
const lintFailed = run(bin('biome'), ['check', '.']) !== 0;

mkdirSync(join(root, '.test-results'), { recursive: true });

/** Counts from a Vitest JSON report; a run that failed without failing a test counts one. */
function counts(status, reportFile) {
  if (!existsSync(reportFile)) return { passed: 0, failed: 1, skipped: 0 };
  const report = JSON.parse(readFileSync(reportFile, 'utf8'));
  let failed = report.numFailedTests ?? 0;
  // A file that fails before any test runs (an import error) fails no test: count it.
  if (status !== 0 && failed === 0) failed = Math.max(1, report.numFailedTestSuites ?? 0);
  return {
    passed: report.numPassedTests ?? 0,
    failed,
    skipped: (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0),
  };
}
/** The failed tests of a Vitest JSON report, one line each with its first message line. */
function failures(label, reportFile) {
  if (!existsSync(reportFile)) return [];
  const report = JSON.parse(readFileSync(reportFile, 'utf8'));
  return (report.testResults ?? []).flatMap((file) => {
    const name = file.name?.startsWith(root) ? file.name.slice(root.length + 1) : file.name;
    const failedTests = (file.assertionResults ?? []).filter((test) => test.status === 'failed');
    if (failedTests.length === 0 && file.status === 'failed') {
      return [`${label} ${name}: ${firstLine(file.message)}`];
    }
    return failedTests.map(
      (test) => `${label} ${name} > ${test.fullName}: ${firstLine(test.failureMessages?.[0])}`,
    );
  });
}
/**
 * A failure's message and what says where it stopped: the first line, Playwright's "waiting
 * for …" (which locator a timeout waited on) and the first frame in the project's own code.
 */
function firstLine(text) {
  const plain = (text ?? '').replaceAll('\u001b', '').replace(/\[[0-9;]*m/g, '');
  const lines = plain.split('\n').map((line) => line.trim());
  const waited = lines.find((line) => line.startsWith('- waiting for'));
  const frame = lines.find(
    (line) => line.startsWith('at ') && line.includes(root) && !line.includes('node_modules'),
  );
  return [lines[0]?.slice(0, 300), waited, frame?.replace(`${root}/`, '')]
    .filter(Boolean)
    .join(' | ');
}
// Vitest leaves a core free by default: one file at a time on a two-core machine. The tests
// mostly wait on the servers they start (PostgreSQL, Chromium, the product), so two
// files at a time there cut the run by a quarter; on larger machines Vitest's default stands.
const workers = [`--maxWorkers=${Math.max(2, availableParallelism() - 1)}`];
// The runtime's files (the second pass) wait most of all: on PostgreSQL servers, replicas, haproxy
// and processes they start, stop and kill. At two at a time the machine was ~80 % busy through
// them; at one more than its cores, ~94 %, and the pass took 180 s instead of 227–254 s (two
// cores, decision 0005). The browser flows take as many in their own project (vite.config.ts).
const runtimeWorkers = [`--maxWorkers=${availableParallelism() + 1}`];
const reporters = (file) => ['--reporter=default', '--reporter=json', `--outputFile.json=${file}`];

// Each test file runs once. The BFF's server, stores, engines, processes and deployment (the
// `bff-runtime` project) run on the deployment's runtime, the image's Node 24, in the second pass;
// everything else (the features, the app's rules, the SPA, the browser flows, the simulator) on
// the machine's Node, which is what `pnpm start` runs (decision 0005).
console.log(`\n== tests on Node ${process.versions.node}`);
const reportFile = join(root, '.test-results', 'vitest.json');
rmSync(reportFile, { force: true });
const vitestStatus = run(bin('vitest'), [
  'run',
  '--project=!bff-runtime*',
  ...workers,
  ...reporters(reportFile),
]);
const here = counts(vitestStatus, reportFile);

const node24Report = join(root, '.test-results', 'vitest-node24.json');
rmSync(node24Report, { force: true });
let node24Status;
try {
  node24Status = vitestOnNode([
    '--project=bff-runtime*',
    ...runtimeWorkers,
    ...reporters(node24Report),
  ]);
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  node24Status = 1;
}
const on24 = counts(node24Status, node24Report);

const passed = here.passed + on24.passed;
const failed = here.failed + on24.failed;
const skipped = here.skipped + on24.skipped;
console.log(
  `\nNode ${process.versions.node}: ${here.passed} passed, ${here.failed} failed, ${here.skipped} skipped` +
    `\nNode 24 (bff-runtime): ${on24.passed} passed, ${on24.failed} failed, ${on24.skipped} skipped`,
);
// Named again at the end, where a CI log's tail shows them: on standard output, which is the
// stream a log that keeps only its tail is cut from.
const failedTests = [
  ...failures(`Node ${process.versions.node}:`, reportFile),
  ...failures('Node 24:', node24Report),
];
if (failedTests.length > 0) console.log(`\nFailed:\n${failedTests.join('\n')}`);
if (typecheckFailed) console.log('typecheck failed');
if (lintFailed) console.log('lint failed');
console.log(`\nTests: ${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(
  vitestStatus !== 0 || node24Status !== 0 || failed > 0 || typecheckFailed || lintFailed ? 1 : 0,
);
