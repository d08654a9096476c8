#!/usr/bin/env node
// `pnpm test:mutation [stryker options]`: StrykerJS over the BFF's security-critical files
// (stryker.config.mjs), then apps/bff/mutation-report.md from its JSON report. Slow (minutes
// per file on two cores): run by hand, never part of `pnpm test` or CI. To restrict a run:
// `pnpm test:mutation --mutate apps/bff/src/http/csrf.ts` (its report then goes under
// .test-results/mutation/, and the committed one stays as the last full run wrote it), and to
// run only the tests that exercise those files, `--tests 'src/http/csrf*.test.ts,…'` (globs
// under apps/bff; vitest.mutation.config.ts).
import { spawnSync } from 'node:child_process';
import { copyFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import config from '../stryker.config.mjs';
import { reportFile, writeMutationReport } from './mutation-report.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const given = process.argv.slice(2);
const testsAt = given.indexOf('--tests');
const tests = testsAt >= 0 ? given.splice(testsAt, 2)[1] : undefined;
if (testsAt >= 0 && !tests) throw new Error('--tests takes comma-separated globs under apps/bff');
const args = ['run', ...given];
if (args.some((a) => a === '-t' || a.startsWith('--testFiles'))) {
  // Stryker 9.6.1 then activates static mutants (module-level code: constants, regular
  // expressions, Lua scripts) at run time, after the module has been evaluated, so they
  // survive whatever the tests assert (mutant-test-planner.js: `testFilter ? 'runtime' :
  // 'static'`). A Vitest config whose bff project includes fewer tests keeps them static.
  console.warn('--testFiles: static mutants survive this run whatever the tests assert');
}
const jsonFile = join(root, config.jsonReporter.fileName);
const modified = () => statSync(jsonFile, { throwIfNoEntry: false })?.mtimeMs ?? 0;
const before = modified();
const started = performance.now();
const run = spawnSync(join(root, 'node_modules', '.bin', 'stryker'), args, {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, ...(tests ? { MUTATION_TESTS: tests } : {}) },
});
const seconds = (performance.now() - started) / 1000;
if (run.status !== 0) {
  console.error(`stryker ended with ${run.status ?? run.signal}; ${reportFile} left as it was`);
  process.exit(run.status ?? 1);
}
if (modified() === before) {
  // A dry run (--dryRunOnly) tests no mutant and writes no JSON: keep the last report.
  console.log(`stryker wrote no new mutation results; ${reportFile} left as it was`);
  process.exit(0);
}
const { unexplained, file, partial } = writeMutationReport({
  seconds,
  command: `${tests ? `MUTATION_TESTS='${tests}' ` : ''}stryker ${args.join(' ')}`,
});
// Stryker writes its incremental file only in --incremental runs; a full run's JSON report is
// the same document, so the next `--incremental` run can start from it. A partial run's would
// make that run test every other file again.
if (!partial && !args.some((a) => a.startsWith('--incremental'))) {
  copyFileSync(jsonFile, join(root, config.incrementalFile));
}
console.log(`\nwrote ${file}: ${unexplained} survivors without an explanation`);
if (partial) console.log(`a partial run: ${reportFile} left as it was`);
