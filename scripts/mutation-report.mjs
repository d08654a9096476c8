#!/usr/bin/env node
// Turns Stryker's JSON report into the committed apps/bff/mutation-report.md: per-file scores,
// then every mutant that was not killed, each either explained as equivalent (from
// apps/bff/mutation-equivalents.json) or left with nothing, meaning a test should kill it.
// `node scripts/mutation-report.mjs` rewrites the report from the last run's JSON.
// A run restricted to some of the files (`--mutate <file>`) says nothing about the others, so
// its report goes to .test-results/mutation/partial-report.md and the committed one, which
// describes a run over all of them, is left as it was.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import config, { securityCriticalFiles } from '../stryker.config.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const reportFile = join(root, 'apps/bff/mutation-report.md');
export const partialReportFile = join(root, '.test-results/mutation/partial-report.md');
const equivalentsFile = join(root, 'apps/bff/mutation-equivalents.json');

/** Mutants no test noticed. */
const undetected = new Set(['Survived', 'NoCoverage']);

/**
 * @typedef {{ file: string, mutator: string, replacement: string, line: string, why: string }} Equivalent
 * `line`: text the mutated source line contains, so an entry survives lines moving.
 */

function count(mutants) {
  const by = (status) => mutants.filter((m) => m.status === status).length;
  const killed = by('Killed');
  const timeout = by('Timeout');
  const survived = by('Survived');
  const noCoverage = by('NoCoverage');
  const valid = killed + timeout + survived + noCoverage;
  return {
    total: mutants.length,
    killed,
    timeout,
    survived,
    noCoverage,
    ignored: by('Ignored'),
    errors: mutants.length - valid - by('Ignored'),
    score: valid === 0 ? Number.NaN : ((killed + timeout) / valid) * 100,
  };
}

const percent = (n) => (Number.isNaN(n) ? 'n/a' : `${n.toFixed(2)}%`);
const code = (text) => {
  const oneLine = text
    .split('\n')
    .map((l) => l.trim())
    .join(' ');
  const short = oneLine.length > 90 ? `${oneLine.slice(0, 87)}…` : oneLine;
  return `\`${short.replaceAll('`', "'")}\``;
};

function sourceText(source, { start, end }) {
  const lines = source.split('\n');
  if (start.line === end.line) return lines[start.line - 1].slice(start.column - 1, end.column - 1);
  return [
    lines[start.line - 1].slice(start.column - 1),
    ...lines.slice(start.line, end.line - 1),
    lines[end.line - 1].slice(0, end.column - 1),
  ].join('\n');
}

/**
 * @param {{ jsonFile?: string, seconds?: number, command?: string, now?: Date }} [options]
 * @returns {{ markdown: string, unexplained: number, file: string, partial: boolean }}
 */
export function writeMutationReport(options = {}) {
  const jsonFile = options.jsonFile ?? join(root, config.jsonReporter.fileName);
  const report = JSON.parse(readFileSync(jsonFile, 'utf8'));
  /** @type {Equivalent[]} */
  const equivalents = JSON.parse(readFileSync(equivalentsFile, 'utf8'));
  const used = new Set();

  const files = Object.keys(report.files).sort();
  const rows = [];
  const open = [];
  let unexplained = 0;
  for (const file of files) {
    const { source, mutants } = report.files[file];
    const c = count(mutants);
    rows.push(
      `| \`${file}\` | ${percent(c.score)} | ${c.killed} | ${c.survived} | ${c.noCoverage} | ${c.timeout} | ${c.ignored} | ${c.errors} | ${c.total} |`,
    );
    const lines = source.split('\n');
    const left = mutants
      .filter((m) => undetected.has(m.status) || m.status === 'Ignored')
      .sort((a, b) => a.location.start.line - b.location.start.line);
    for (const m of left) {
      const where = `${file}:${m.location.start.line}:${m.location.start.column}`;
      const line = lines[m.location.start.line - 1] ?? '';
      const change = `${m.mutatorName}: ${code(sourceText(source, m.location))} → ${code(m.replacement ?? '')}`;
      const match = equivalents.find(
        (e) =>
          e.file === file &&
          e.mutator === m.mutatorName &&
          e.replacement === m.replacement &&
          line.includes(e.line),
      );
      if (match) used.add(match);
      let verdict = '';
      if (m.status === 'Ignored') verdict = ` — ignored in the source: ${m.statusReason ?? ''}`;
      else if (match) verdict = ` — **equivalent**: ${match.why}`;
      else unexplained++;
      open.push(`- \`${where}\` ${m.status} ${change}${verdict}`);
    }
  }

  const all = count(files.flatMap((f) => report.files[f].mutants));
  const notRun = securityCriticalFiles.filter((f) => !files.includes(f));
  const partial = notRun.length > 0;
  const now = options.now ?? new Date();
  const stale = equivalents.filter((e) => !used.has(e) && files.includes(e.file));
  const markdown = [
    `# Mutation testing: the BFF’s security-critical files${partial ? ' (a partial run)' : ''}`,
    '',
    'Written by `pnpm test:mutation` (StrykerJS, `stryker.config.mjs`; run by hand, never in CI).',
    'Score = (killed + timed out) / (killed + timed out + survived + no coverage). A mutant',
    'left below is either explained as **equivalent** (`apps/bff/mutation-equivalents.json`:',
    'no test can tell it from the real code) or has no explanation: a test should kill it.',
    '',
    `- Run: ${now.toISOString().replace(/\.\d+Z$/, 'Z')}${options.seconds === undefined ? '' : `, ${formatDuration(options.seconds)}`} (${report.framework?.name ?? 'Stryker'} ${report.framework?.version ?? ''}, concurrency ${config.concurrency}, coverage analysis ${config.coverageAnalysis})`,
    ...(options.command ? [`- Command: \`${options.command}\``] : []),
    `- Mutated in this run: ${files.length} of ${securityCriticalFiles.length} files, as at ${codeVersion(files)}${notRun.length ? `; not in this run: ${notRun.map((f) => `\`${f}\``).join(', ')}` : ''}`,
    `- Overall: **${percent(all.score)}** (${all.killed} killed, ${all.timeout} timed out, ${all.survived} survived, ${all.noCoverage} no coverage, ${all.ignored} ignored, ${all.total} mutants); target ≥ 90%`,
    `- Survivors without an explanation: **${unexplained}**`,
    '',
    '| file | score | killed | survived | no coverage | timed out | ignored | errors | total |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...rows,
    '',
    '## Mutants not killed',
    '',
    ...(open.length ? open : ['None.']),
    ...(stale.length
      ? [
          '',
          '## Equivalents that matched nothing in this run',
          '',
          'The code they describe has changed: check and remove them.',
          '',
          ...stale.map(
            (e) =>
              `- \`${e.file}\` ${e.mutator} → ${code(e.replacement)} on a line with ${code(e.line)}`,
          ),
        ]
      : []),
    '',
  ].join('\n');
  const file = partial ? partialReportFile : reportFile;
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, markdown);
  return { markdown, unexplained, file, partial };
}

/** The commit the mutated files came from, and whether any of them had changes on top. */
function codeVersion(files) {
  try {
    const git = (...args) => execFileSync('git', args, { cwd: root, encoding: 'utf8' }).trim();
    const dirty = git('status', '--porcelain', '--', ...files) !== '';
    return `commit ${git('rev-parse', '--short', 'HEAD')}${dirty ? ' with uncommitted changes to them' : ''}`;
  } catch {
    return 'no git commit known';
  }
}

function formatDuration(seconds) {
  const m = Math.floor(seconds / 60);
  const s = Math.round(seconds % 60);
  return m ? `${m} min ${s} s` : `${s} s`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { unexplained, file, partial } = writeMutationReport();
  console.log(
    `wrote ${file} (${unexplained} survivors without an explanation)${partial ? `; a partial run, so ${reportFile} was left as it was` : ''}`,
  );
}
