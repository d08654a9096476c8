// @ts-check
// `pnpm test:mutation`: StrykerJS over the BFF's security-critical files, run by hand (never in
// CI or `pnpm test`); scripts/mutation-report.mjs then writes apps/bff/mutation-report.md.

/** The files whose guards a weakened test would let slip: auth, CSRF, sessions, step-up, secrets. */
export const securityCriticalFiles = [
  'apps/bff/src/http/authorize.ts',
  'apps/bff/src/http/csrf.ts',
  'apps/bff/src/platform/sessions/session-service.ts',
  'apps/bff/src/features/session/sign-in-service.ts',
  'apps/bff/src/platform/security/step-up.ts',
  'apps/bff/src/platform/security/card-numbers.ts',
  'apps/bff/src/upstream/translate-error.ts',
];

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
  // Nothing the BFF's tests need: keep the sandbox copy small.
  ignorePatterns: ['apps/web', 'bench', '.test-results', '.e2e-artifacts', '**/.data', '**/dist'],
  // The BFF tests start a simulator and an app over loopback; a busy machine needs slack.
  timeoutMS: 30_000,
  dryRunTimeoutMinutes: 30,
  thresholds: { high: 90, low: 80, break: null },
};
