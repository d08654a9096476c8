// @ts-check
// `pnpm test:mutation`: StrykerJS over the BFF's security-critical files, run by hand (never in
// CI or `pnpm test`); scripts/mutation-report.mjs then writes apps/bff/mutation-report.md.
import { execFileSync } from 'node:child_process';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(fileURLToPath(import.meta.url));

/** The files whose guards a weakened test would let slip: auth, CSRF, sessions, step-up, secrets. */
export const securityCriticalFiles = [
  'apps/bff/src/http/authorize.ts',
  'apps/bff/src/http/api-router.ts',
  'apps/bff/src/http/csrf.ts',
  'apps/bff/src/platform/sessions/session-service.ts',
  'apps/bff/src/features/session/sign-in-service.ts',
  'apps/bff/src/platform/security/step-up.ts',
  'apps/bff/src/platform/security/card-numbers.ts',
  'apps/bff/src/platform/security/card-number-dates.ts',
  'apps/bff/src/upstream/translate-error.ts',
  // Single sign-on and passkeys.
  'apps/bff/src/features/sso/relying-party.ts',
  'apps/bff/src/features/sso/sso-endpoints.ts',
  'apps/bff/src/platform/passkeys/passkey-ceremonies.ts',
  'apps/bff/src/platform/security/one-time-store.ts',
  'apps/bff/src/platform/security/sql-one-time-store.ts',
  'apps/bff/src/platform/locks/sql-keyed-lock.ts',
  'apps/bff/src/platform/audit/audit-chain.ts',
  'apps/bff/src/platform/audit/verify-chain.ts',
  // Alert rules: who may do what with one, how many one person keeps, none identical, and the
  // emails a recipient gets in an hour.
  'apps/bff/src/features/alerts/alert-rules.ts',
  'apps/bff/src/features/alerts/alert-rule-limits.ts',
  'apps/bff/src/features/alerts/email-cap.ts',
  // Exports: slots given back however an export ends, and the receipts ZIP at the reader's pace.
  'apps/bff/src/platform/security/export-slots.ts',
  'apps/bff/src/platform/security/sql-export-slots.ts',
  'apps/bff/src/features/transaction-index/stream-zip.ts',
  // Receipts: what is kept of an upload, and its name.
  'apps/bff/src/features/notes/receipts-service.ts',
  'apps/bff/src/features/notes/receipt-file.ts',
  'apps/bff/src/features/notes/receipt-refused.ts',
  'apps/bff/src/features/notes/receipt-jpeg.ts',
  'apps/bff/src/features/notes/receipt-png.ts',
  'apps/bff/src/features/notes/receipt-webp.ts',
  'apps/bff/src/features/notes/receipt-heif.ts',
  'apps/bff/src/features/notes/receipt-pdf.ts',
];

/**
 * What git leaves out of a checkout (node_modules, dist, .data, .test-results…, as the work tree
 * holds them now), each anchored at the root. The sandbox is then what a clean checkout plus
 * the work in progress holds: every file a test may read, whichever app it sits in. A
 * hand-kept list drifted once (it left out apps/web, whose route tree a BFF test reads);
 * `apps/bff/src/mutation-sandbox.test.ts` checks, in `pnpm test`, that no file git keeps is
 * left out.
 */
export function gitIgnoredPaths(cwd = root) {
  let listing;
  try {
    listing = execFileSync(
      'git',
      ['ls-files', '-z', '--others', '--ignored', '--exclude-standard', '--directory'],
      { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
    );
  } catch (error) {
    throw new Error('stryker.config.mjs takes the sandbox from git: run it in a git work tree', {
      cause: error,
    });
  }
  return listing
    .split('\0')
    .filter(Boolean)
    .map((path) => `/${path.replace(/[*?[\]{}()!+@\\]/g, '\\$&')}`);
}

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  // Named, not found by the default '@stryker-mutator/*' scan, which misses pnpm's layout.
  plugins: ['@stryker-mutator/vitest-runner'],
  vitest: { configFile: 'vitest.mutation.config.ts' },
  mutate: securityCriticalFiles,
  // Per-test coverage runs only the tests that reach a mutant: affordable on two cores.
  coverageAnalysis: 'perTest',
  concurrency: 2,
  // Sandboxed copies only (the default): the working tree is never mutated in place.
  inPlace: false,
  // Under .test-results/, which git and biome already skip.
  tempDirName: '.test-results/stryker-tmp',
  jsonReporter: { fileName: '.test-results/mutation/mutation.json' },
  // `pnpm test:mutation --incremental` re-tests only mutants whose code or tests changed.
  incrementalFile: '.test-results/mutation/stryker-incremental.json',
  reporters: ['json', 'clear-text', 'progress'],
  clearTextReporter: { logTests: false, allowColor: false },
  // The sandbox is the checkout: whatever git ignores, nothing it keeps (~3 MB of sources).
  ignorePatterns: gitIgnoredPaths(),
  // The BFF tests start a simulator and an app over loopback; a busy machine needs slack.
  timeoutMS: 30_000,
  dryRunTimeoutMinutes: 30,
  thresholds: { high: 90, low: 80, break: null },
};
