import { fileURLToPath } from 'node:url';
import { tanstackRouter } from '@tanstack/router-plugin/vite';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vitest/config';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

export default defineConfig({
  root: here('.'),
  plugins: [
    // Must come before react(): it generates the route tree and splits route components.
    tanstackRouter({
      target: 'react',
      autoCodeSplitting: true,
      routesDirectory: here('./src/routes'),
      generatedRouteTree: here('./src/routeTree.gen.ts'),
      quoteStyle: 'single',
      semicolons: true,
    }),
    react(),
  ],
  build: {
    outDir: 'dist',
    sourcemap: false,
    rolldownOptions: {
      // The shared package builds zod schemas at module level; when the SPA imports only a
      // constant from such a module, these calls are dead code and should not pull in zod.
      treeshake: {
        manualPureFunctions: [
          'z.array',
          'z.email',
          'z.enum',
          'z.iso.datetime',
          'z.looseObject',
          'z.number',
          'z.object',
          'z.strictObject',
          'z.string',
        ],
      },
    },
  },
  server: {
    proxy: { '/api': 'http://localhost:3000' },
  },
  test: {
    name: 'web',
    root: here('.'),
    environment: 'jsdom',
    include: ['src/**/*.test.{ts,tsx}'],
    setupFiles: ['./src/test/setup.ts'],
  },
});
