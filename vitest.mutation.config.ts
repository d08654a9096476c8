import { configDefaults, defineConfig, type TestProjectConfiguration } from 'vitest/config';
import workspace from './vite.config';

// Mutation testing runs only the BFF's tests: the workspace config's `bff` project, taken from
// there so both runs use the same settings.
const bff = workspace.test?.projects?.find(
  (project): project is Extract<TestProjectConfiguration, { test?: unknown }> =>
    typeof project === 'object' && 'test' in project && project.test?.name === 'bff',
);
if (!bff) throw new Error('vite.config.ts has no bff project');

// Less the check of the sandbox itself: it compares the repository with what Stryker copies,
// and inside that copy there is no git to ask.
export default defineConfig({
  test: {
    projects: [
      {
        ...bff,
        test: {
          ...bff.test,
          exclude: [
            ...(bff.test?.exclude ?? configDefaults.exclude),
            'src/mutation-sandbox.test.ts',
          ],
        },
      },
    ],
  },
});
