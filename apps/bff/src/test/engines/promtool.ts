// Runs Debian's promtool (the prometheus package, installed by scripts/ensure-engines.mjs as
// `pnpm test` runs it) for the tests that check the alert rules and a real scrape.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const binary = '/usr/bin/promtool';

/** `ops/prometheus` at the repository root: the rules, their tests and runbooks. */
export const prometheusDir = join(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  '..',
  '..',
  '..',
  'ops',
  'prometheus',
);

export interface PromtoolResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `promtool …args`, with `input` on its stdin; resolves once it has exited. */
export function promtool(args: string[], options: { cwd?: string; input?: string } = {}) {
  if (!existsSync(binary)) {
    throw new Error(
      `No promtool at ${binary}: run \`node scripts/ensure-engines.mjs\` (pnpm test does), which installs Debian's prometheus package.`,
    );
  }
  return new Promise<PromtoolResult>((resolve, reject) => {
    const child = spawn(binary, args, {
      cwd: options.cwd ?? prometheusDir,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.input ?? '');
  });
}
