import { fileURLToPath } from 'node:url';
import { tanstackRouter } from '@tanstack/router-plugin/vite';
import react from '@vitejs/plugin-react';
import type { Plugin } from 'vite';
import { compression } from 'vite-plugin-compression2';
import { defineConfig } from 'vitest/config';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/**
 * `src/start.ts` (the router, started) as an entry of its own, first in index.html: it runs
 * once its own code has loaded, while React's is still on its way, so the first screen's
 * reads leave that much sooner. Written in index.html itself it would be merged into the
 * main entry, and a module script runs only once all it imports has loaded.
 */
function startEntry(): Plugin {
  const start = 'src/start.ts';
  return {
    name: 'card-console:start-entry',
    transformIndexHtml: {
      order: 'post',
      handler(html, ctx) {
        const tags = (src: string, preload: string[]) =>
          [
            `<script type="module" crossorigin src="${src}"></script>`,
            ...preload.map((file) => `<link rel="modulepreload" crossorigin href="/${file}">`),
          ].join('\n    ');
        let first: string;
        if (!ctx.bundle) first = tags(`/${start}`, []);
        else {
          const chunk = Object.values(ctx.bundle).find(
            (c) => c.type === 'chunk' && c.isEntry && c.facadeModuleId === here(start),
          );
          if (chunk?.type !== 'chunk') throw new Error(`${start} was not built as an entry`);
          first = tags(`/${chunk.fileName}`, chunk.imports);
        }
        // Just ahead of the app's own entry: module scripts run in document order. In dev,
        // after Vite's client and React Refresh's preamble, which any component needs first.
        const at = html.search(/<script type="module"[^>]*\ssrc="(?!\/@)/);
        if (at < 0) throw new Error('index.html has no module script');
        return `${html.slice(0, at)}${first}\n    ${html.slice(at)}`;
      },
    },
  };
}

/** What only main.tsx's render needs: it loads beside start.ts, not before it runs. */
const renderOnly =
  /[\\/]node_modules[\\/](react-dom|scheduler)[\\/]|[\\/]src[\\/]main\.tsx$|\.html$/;

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
    startEntry(),
    // Brotli and gzip copies of every text file, made once at build time: the BFF sends them
    // as they are (express-static-gzip) instead of compressing each download on its one thread.
    compression({ algorithms: ['brotliCompress', 'gzip'] }),
  ],
  build: {
    outDir: 'dist',
    sourcemap: false,
    rolldownOptions: {
      input: { index: here('index.html'), start: here('src/start.ts') },
      output: {
        // The first download's code but the render's in one chunk with start.ts. Left to the
        // bundler, what the two entries and the route chunks share was cut by who reaches it
        // into ~20 files (2 kB more gzipped, and more files before the first read).
        codeSplitting: {
          groups: [{ name: 'start', tags: ['$initial'], test: (id) => !renderOnly.test(id) }],
        },
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
    // A hang guard, as the BFF's 30 s: a screen's test types, clicks and loads the screen's chunk
    // for real (user-event, lazy routes), and Vitest's 5 s ran out on a two-core machine running
    // other suites beside it (a clean-clone run), where the same tests take 1–2 s alone.
    testTimeout: 15_000,
  },
});
