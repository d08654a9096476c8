import { configDefaults, defineConfig, type TestProjectConfiguration } from 'vitest/config';
import workspace from './vite.config';

// Mutation testing runs only the BFF's tests, all of them (the workspace config's `bff` and
// `bff-runtime` projects): the `bff` project's settings, taken from there so both runs use the same.
const bff = workspace.test?.projects?.find(
  (project): project is Extract<TestProjectConfiguration, { test?: unknown }> =>
    typeof project === 'object' && 'test' in project && project.test?.name === 'bff',
);
if (!bff) throw new Error('vite.config.ts has no bff project');

// `pnpm test:mutation --tests <globs>` (MUTATION_TESTS: comma-separated, under apps/bff) runs
// only those tests: a few files against the tests that exercise them take minutes where the
// whole suite takes hours on two cores. Narrowed here, not with Stryker's --testFiles, so
// module-level mutants stay static (scripts/test-mutation.mjs). A narrowed run can only kill
// fewer mutants than the whole suite would: its score is a lower bound.
const only = process.env.MUTATION_TESTS?.split(',').filter(Boolean) ?? [];

// Less the check of the sandbox itself: it compares the repository with what Stryker copies,
// and inside that copy there is no git to ask.
export default defineConfig({
  test: {
    projects: [
      {
        ...bff,
        test: {
          ...bff.test,
          include: only.length > 0 ? only : ['src/**/*.test.ts'],
          exclude: [...configDefaults.exclude, 'src/mutation-sandbox.test.ts'],
          // Every file isolated, as before the workspace's BFF projects shared a module graph per
          // worker: here one file mocks a module (src/test/secret-scan.test.ts).
          isolate: true,
        },
      },
    ],
  },
});
