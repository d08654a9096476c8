import { defineConfig } from 'vitest/config';

// `pnpm test:container`: builds the Dockerfile's image with Debian's podman and runs it against
// `pnpm sim` (apps/bff/src/deploy/container-image.podman.ts). Minutes on a cold cache, so it
// is not part of `pnpm test`, which checks the same files statically (container-files.test.ts).
export default defineConfig({
  test: {
    name: 'container',
    root: './apps/bff',
    include: ['src/deploy/*.podman.ts'],
    environment: 'node',
    testTimeout: 120_000,
    hookTimeout: 900_000,
  },
});
