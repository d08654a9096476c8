import { existsSync } from 'node:fs';
import { join } from 'node:path';
import compression from 'compression';
import express, { type Router } from 'express';
import expressStaticGzip from 'express-static-gzip';
import { AppError } from '../core/app-error';
import { asksForHtml, isSpaPage } from './spa-pages';

const notBuiltPage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Card Console</title></head>
<body><h1>Card Console</h1>
<p>The web app is not built yet. Run <code>pnpm start</code> from the repository root (it builds
the app first), or <code>pnpm --filter @card-console/web build</code>, then reload.</p>
<p>The API is up under <code>/api</code>.</p></body></html>`;

/**
 * The built SPA: hashed assets cached for a year, everything else revalidated, and a GET of
 * one of the SPA's pages that asks for HTML answered with index.html so client-side routes
 * survive a reload. A browser opening an address that is no page (`/nope`) gets index.html
 * too, with status 404: the SPA's router shows its own "Not found" with a way back, while a
 * monitor still sees a 404. Anything else is a 404 with the API's error body: a missing
 * asset, or a request that does not ask for HTML (`/metrics` scraped on the wrong port must
 * not look healthy). /api paths never get here: the API router, mounted before, answers them
 * all (`api-router.ts`).
 *
 * Text files go out as the build's Brotli or gzip copies (vite.config.ts), as the browser
 * accepts: compressing the ~250 kB main script on each cold load took this one thread tens of
 * milliseconds, while the same page's API reads waited. The copies are listed when the server
 * starts; a file built after that (the SPA rebuilt while the server runs) is compressed as
 * it is sent instead, and one deleted since is answered like any missing file.
 */
/** The build's files live under /assets: one missing there is a real 404, never a page. */
const isAssetPath = (path: string) => /^\/assets(?:\/|$)/i.test(path);

export function spa(webDist: string): Router {
  const router = express.Router();
  // A path that is not valid percent-encoding is the caller's 400, in the API's error body
  // (the static middleware below would answer it in plain text).
  router.use((req, _res, next) => {
    try {
      decodeURIComponent(req.path);
    } catch {
      return next(new AppError(400, 'bad_request', 'The request could not be understood.'));
    }
    next();
  });
  // Only for what has no compressed copy: a response that already has a Content-Encoding
  // is left alone.
  router.use(compression());
  router.use(
    expressStaticGzip(webDist, {
      enableBrotli: true,
      orderPreference: ['br', 'gzip'],
      index: false,
      serveStatic: {
        index: false,
        redirect: false,
        setHeaders: (res, path) => {
          const immutable = path.startsWith(join(webDist, 'assets'));
          res.setHeader(
            'Cache-Control',
            immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
          );
        },
      },
    }),
  );
  router.use((req, res, next) => {
    // A compressed copy listed at start-up and deleted since (the SPA rebuilt) leaves its
    // encoding headers set on the way here: they are not this answer's.
    res.removeHeader('Content-Encoding');
    res.removeHeader('Content-Type');
    res.removeHeader('Vary');
    const isGet = req.method === 'GET' || req.method === 'HEAD';
    if (isGet && !isAssetPath(req.path) && asksForHtml(req.get('accept'))) return next();
    next(new AppError(404, 'not_found', 'There is no such page.'));
  });
  router.get('/{*splat}', (req, res) => {
    const index = join(webDist, 'index.html');
    res.setHeader('Cache-Control', 'no-cache');
    // No page here: the app says so itself, and the status says so to anything not a person.
    res.status(isSpaPage(req.path) ? 200 : 404);
    if (!existsSync(index)) {
      res.type('html').send(notBuiltPage);
      return;
    }
    res.sendFile(index);
  });
  return router;
}
