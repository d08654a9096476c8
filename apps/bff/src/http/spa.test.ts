import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http, { type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { apiErrorBodySchema } from '@card-console/shared/api/error';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../platform/logger';
import { startTestApp } from '../test/harness';
import { errorHandler } from './error-handler';
import { requestId } from './request-id';
import { spa } from './spa';
import { spaPages } from './spa-pages';

const script = `export const answer = ${JSON.stringify('x'.repeat(4000))};\n`;
const styles = `body { color: black; }\n${'.a { margin: 0 }\n'.repeat(200)}`;

/** A built SPA: a script with the build's Brotli and gzip copies, a stylesheet without. */
function builtSpa(): string {
  const dist = mkdtempSync(join(tmpdir(), 'cc-spa-'));
  mkdirSync(join(dist, 'assets'));
  writeFileSync(join(dist, 'index.html'), '<!doctype html><title>Card Console</title>');
  writeFileSync(join(dist, 'assets', 'app-abc123.js'), script);
  writeFileSync(join(dist, 'assets', 'app-abc123.js.br'), brotliCompressSync(script));
  writeFileSync(join(dist, 'assets', 'app-abc123.js.gz'), gzipSync(script));
  writeFileSync(join(dist, 'assets', 'styles-def456.css'), styles);
  return dist;
}

/** What a browser sends when it opens an address. */
const browserAccept =
  'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';

/** The SPA as the app mounts it: behind a request id, followed by the one error handler. */
function spaApp(dist: string) {
  return express().use(requestId(), spa(dist), errorHandler(createLogger('silent')));
}

/** A request with the bytes as they came (no client-side decompression). */
function get(base: string, path: string, acceptEncoding = '', accept = '*/*', method = 'GET') {
  return new Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }>(
    (resolve, reject) => {
      http
        .request(`${base}${path}`, {
          method,
          headers: { 'Accept-Encoding': acceptEncoding, Accept: accept },
        })
        .on('response', (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              headers: res.headers,
              body: Buffer.concat(chunks),
            }),
          );
        })
        .on('error', reject)
        .end();
    },
  );
}

/** The SPA's pages as its router lists them (the `to` union of the generated route tree). */
function routerPages(): string[] {
  const here = dirname(fileURLToPath(import.meta.url));
  const tree = readFileSync(join(here, '../../../web/src/routeTree.gen.ts'), 'utf8');
  const union = /\n {2}to:\n((?: {4}\| '[^']*';?\n)+)/.exec(tree)?.[1] ?? '';
  return [...union.matchAll(/'([^']*)'/g)].map((m) => (m[1] ?? '').replace(/\$\w+/g, ':id'));
}

const expectNotFound = (res: { status: number; headers: IncomingHttpHeaders; body: Buffer }) => {
  expect(res.status).toBe(404);
  expect(res.headers['content-type']).toBe('application/problem+json; charset=utf-8');
  expect(res.headers['content-encoding']).toBeUndefined();
  const body = apiErrorBodySchema.parse(JSON.parse(res.body.toString('utf8')));
  expect(body).toMatchObject({ status: 404, code: 'not_found' });
  expect(body.requestId).toBe(res.headers['x-request-id']);
};

describe('spa()', () => {
  const dist = builtSpa();
  let server: http.Server;
  let base: string;
  beforeAll(async () => {
    server = http.createServer(spaApp(dist));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    rmSync(dist, { recursive: true, force: true, maxRetries: 5 });
  });

  it("sends the build's Brotli copy to a browser that takes it, as the script it is", async () => {
    const res = await get(base, '/assets/app-abc123.js', 'gzip, deflate, br');
    expect(res.status).toBe(200);
    expect(res.headers['content-encoding']).toBe('br');
    expect(res.headers['content-type']).toMatch(/^text\/javascript; charset=utf-8$/i);
    expect(res.headers.vary).toMatch(/Accept-Encoding/i);
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(res.body).toEqual(brotliCompressSync(script));
  });

  it('sends the gzip copy when that is all the browser takes, and the file itself when none', async () => {
    const gz = await get(base, '/assets/app-abc123.js', 'gzip');
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.body).toString('utf8')).toBe(script);

    const plain = await get(base, '/assets/app-abc123.js');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.toString('utf8')).toBe(script);
  });

  it('compresses a file that has no copy as it sends it', async () => {
    const res = await get(base, '/assets/styles-def456.css', 'gzip');
    expect(res.status).toBe(200);
    expect(res.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(res.body).toString('utf8')).toBe(styles);
  });

  it('answers for a compressed copy deleted since start-up as for any missing file: 404', async () => {
    writeFileSync(join(dist, 'assets', 'gone-0a1b.js'), script);
    writeFileSync(join(dist, 'assets', 'gone-0a1b.js.br'), brotliCompressSync(script));
    const app = http.createServer(spaApp(dist));
    await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
    const at = `http://127.0.0.1:${(app.address() as AddressInfo).port}`;
    rmSync(join(dist, 'assets', 'gone-0a1b.js'));
    rmSync(join(dist, 'assets', 'gone-0a1b.js.br'));
    try {
      expectNotFound(await get(at, '/assets/gone-0a1b.js', 'br, gzip', browserAccept));
    } finally {
      await new Promise((resolve) => app.close(resolve));
    }
  });

  it("lists exactly the pages of the SPA's router", () => {
    expect([...spaPages].sort()).toEqual(routerPages().sort());
  });

  it.each(
    spaPages.flatMap((page) => {
      const path = page.replace(':id', 'id_7Qx2');
      return page === '/' ? [path, '/?from=1'] : [path, `${path}/`, `${path}?cursor=abc`];
    }),
  )('a browser opening %s gets index.html, revalidated', async (path) => {
    const page = await get(base, path, '', browserAccept);
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.headers['cache-control']).toBe('no-cache');
    expect(page.body.toString('utf8')).toContain('<title>Card Console</title>');
  });

  it.each([
    `/cards/${encodeURIComponent('a/b?c=d#e 100% 卡片 😀')}`,
    `/cards/${encodeURIComponent('../../package.json')}`,
    `/transactions/${encodeURIComponent('tx 2/+%')}?subAccountId=${encodeURIComponent('ops team/1')}`,
  ])('a deep link to an id holding URL syntax (%s) gets index.html, not a file', async (path) => {
    const page = await get(base, path, '', browserAccept);
    expect(page.status).toBe(200);
    expect(page.body.toString('utf8')).toContain('<title>Card Console</title>');
  });

  it.each([
    '/nope',
    '/metrics',
    '/cards/id_1/reveal',
    '/transactions/id_1/extra',
    '/index.htm',
    '/admin',
  ])(
    "a browser opening %s, no page, gets index.html with 404: the app's own Not found",
    async (path) => {
      const page = await get(base, path, '', browserAccept);
      expect(page.status).toBe(404);
      expect(page.headers['content-type']).toMatch(/^text\/html/);
      expect(page.headers['cache-control']).toBe('no-cache');
      expect(page.body.toString('utf8')).toContain('<title>Card Console</title>');
    },
  );

  it.each(['/assets/missing-0000.js', '/assets/missing-0000.css', '/assets'])(
    'a missing asset (%s) is a 404 with the error body, even to a browser',
    async (path) => {
      expectNotFound(await get(base, path, 'gzip', browserAccept));
    },
  );

  it.each(['/nope', '/metrics'])(
    '%s without HTML in Accept: 404 with the error body',
    async (path) => {
      expectNotFound(await get(base, path, '', 'application/json'));
    },
  );

  it.each([
    [
      'a Prometheus scrape',
      'application/openmetrics-text;version=1.0.0;q=0.5,text/plain;version=0.0.4;q=0.3,*/*;q=0.2',
    ],
    ['any type (curl)', '*/*'],
    ['JSON', 'application/json'],
    ['HTML refused outright', 'text/html;q=0, */*'],
    ['no Accept at all', ''],
  ])('a page asked for without HTML (%s): 404 with the error body', async (_what, accept) => {
    expectNotFound(await get(base, '/cards', '', accept));
  });

  it('a page sent a POST: 404 with the error body', async () => {
    expectNotFound(await get(base, '/', '', browserAccept, 'POST'));
  });
});

describe('the public port of the whole app', () => {
  it('answers a scrape of /metrics with 404 and the error body, a deep link with the page', async () => {
    const t = await startTestApp({ sim: { transactions: 10 } });
    try {
      const scrape = await t.request.get('/metrics').set('Accept', 'text/plain;version=0.0.4');
      expect(scrape.status).toBe(404);
      expect(apiErrorBodySchema.parse(scrape.body).code).toBe('not_found');
      const page = await t.request.get('/transactions/id_1').set('Accept', browserAccept);
      expect(page.status).toBe(200);
      expect(page.text).toContain('not built');
      // An address that is no page: the app (its Not found) for a person, with the headers
      // every page has; the API's own paths stay the API's 404.
      const unknown = await t.request.get('/nope').set('Accept', browserAccept);
      expect(unknown.status).toBe(404);
      expect(unknown.type).toBe('text/html');
      expect(unknown.headers['content-security-policy']).toContain("object-src 'none'");
      expect(unknown.headers['x-content-type-options']).toBe('nosniff');
      const api = await t.request.get('/api/nope').set('Accept', browserAccept).set('X-CSRF', '1');
      expect(api.status).toBe(404);
      expect(apiErrorBodySchema.parse(api.body).code).toBe('not_found');
    } finally {
      await t.close();
    }
  });
});
