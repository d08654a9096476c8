import { defineConfig, type TestProjectConfiguration } from 'vitest/config';
import workspace from './vite.config';

// Mutation testing runs only the BFF's tests: the workspace config's `bff` project, taken from
// there so both runs use the same settings.
const bff = workspace.test?.projects?.find(
  (project): project is Extract<TestProjectConfiguration, { test?: unknown }> =>
    typeof project === 'object' && 'test' in project && project.test?.name === 'bff',
);
if (!bff) throw new Error('vite.config.ts has no bff project');

export default defineConfig({ test: { projects: [bff] } });
