import { existsSync } from 'node:fs';
import { join } from 'node:path';
import compression from 'compression';
import express, { type Router } from 'express';

const notBuiltPage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Card Console</title></head>
<body><h1>Card Console</h1>
<p>The web app is not built yet. Run <code>pnpm start</code> from the repository root (it builds
the app first), or <code>pnpm --filter @card-console/web build</code>, then reload.</p>
<p>The API is up under <code>/api</code>.</p></body></html>`;

/**
 * The built SPA: hashed assets cached for a year, everything else revalidated, and any other
 * GET answered with index.html so client-side routes survive a reload. /api paths never get
 * here: the request listener hands them to the API (`request-listener.ts`).
 * Checked per request, so building the SPA while the server runs just works.
 */
export function spa(webDist: string): Router {
  const router = express.Router();
  // The SPA's text assets go out compressed; /api answers are small and stay uncompressed.
  router.use(compression());
  router.use(
    express.static(webDist, {
      index: false,
      redirect: false,
      setHeaders: (res, path) => {
        const immutable = path.startsWith(join(webDist, 'assets'));
        res.setHeader(
          'Cache-Control',
          immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
        );
      },
    }),
  );
  router.get('/{*splat}', (_req, res) => {
    const index = join(webDist, 'index.html');
    res.setHeader('Cache-Control', 'no-cache');
    if (!existsSync(index)) {
      res.status(200).type('html').send(notBuiltPage);
      return;
    }
    res.sendFile(index);
  });
  return router;
}
