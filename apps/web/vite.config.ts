import { fileURLToPath } from 'node:url';
import { tanstackRouter } from '@tanstack/router-plugin/vite';
import react from '@vitejs/plugin-react';
import type { Plugin } from 'vite';
import { compression } from 'vite-plugin-compression2';
import { defineConfig } from 'vitest/config';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/**
 * `src/lib/early-requests.ts` as its own tiny entry, first in index.html: it sends the first
 * screen's API reads as soon as the page is parsed. Written in index.html itself it would be
 * merged into the main entry and run only once all the app's code had loaded.
 */
function earlyRequestsEntry(): Plugin {
  const early = 'src/lib/early-requests.ts';
  return {
    name: 'card-console:early-requests',
    transformIndexHtml: {
      order: 'post',
      handler(html, ctx) {
        const tags = (src: string, preload: string[]) =>
          [
            `<script type="module" crossorigin src="${src}"></script>`,
            ...preload.map((file) => `<link rel="modulepreload" crossorigin href="/${file}">`),
          ].join('\n    ');
        let first: string;
        if (!ctx.bundle) first = tags(`/${early}`, []);
        else {
          const chunk = Object.values(ctx.bundle).find(
            (c) => c.type === 'chunk' && c.isEntry && c.facadeModuleId === here(early),
          );
          if (chunk?.type !== 'chunk') throw new Error(`${early} was not built as an entry`);
          first = tags(`/${chunk.fileName}`, chunk.imports);
        }
        // Ahead of the app's own entry: module scripts run in document order.
        const at = html.indexOf('<script type="module"');
        if (at < 0) throw new Error('index.html has no module script');
        return `${html.slice(0, at)}${first}\n    ${html.slice(at)}`;
      },
    },
  };
}

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
    earlyRequestsEntry(),
    // Brotli and gzip copies of every text file, made once at build time: the BFF sends them
    // as they are (express-static-gzip) instead of compressing each download on its one thread.
    compression({ algorithms: ['brotliCompress', 'gzip'] }),
  ],
  build: {
    outDir: 'dist',
    sourcemap: false,
    rolldownOptions: {
      input: { index: here('index.html'), early: here('src/lib/early-requests.ts') },
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
