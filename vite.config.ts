import { defineConfig } from 'vitest/config';

/** One Vitest run for the whole workspace: a project per package. */
export default defineConfig({
  test: {
    projects: [{ test: { name: 'shared', root: './packages/shared', environment: 'node' } }],
  },
});
