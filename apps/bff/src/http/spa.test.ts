import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http, { type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, gunzipSync, gzipSync } from 'node:zlib';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spa } from './spa';

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

/** A GET with the bytes as they came (no client-side decompression). */
function get(base: string, path: string, acceptEncoding = '') {
  return new Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }>(
    (resolve, reject) => {
      http
        .get(`${base}${path}`, { headers: { 'Accept-Encoding': acceptEncoding } }, (res) => {
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
        .on('error', reject);
    },
  );
}

describe('spa()', () => {
  const dist = builtSpa();
  let server: http.Server;
  let base: string;
  beforeAll(async () => {
    server = http.createServer(express().use(spa(dist)));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    rmSync(dist, { recursive: true, force: true });
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

  it('answers for a compressed copy deleted since start-up as for any missing file', async () => {
    writeFileSync(join(dist, 'assets', 'gone-0a1b.js'), script);
    writeFileSync(join(dist, 'assets', 'gone-0a1b.js.br'), brotliCompressSync(script));
    const app = http.createServer(express().use(spa(dist)));
    await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
    const at = `http://127.0.0.1:${(app.address() as AddressInfo).port}`;
    rmSync(join(dist, 'assets', 'gone-0a1b.js'));
    rmSync(join(dist, 'assets', 'gone-0a1b.js.br'));
    try {
      const res = await get(at, '/assets/gone-0a1b.js', 'br, gzip');
      expect(res.headers['content-encoding']).toBeUndefined();
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.body.toString('utf8')).toContain('<title>Card Console</title>');
    } finally {
      await new Promise((resolve) => app.close(resolve));
    }
  });

  it('answers any other address with index.html, revalidated, and a missing asset with it too', async () => {
    const page = await get(base, '/transactions?subAccountId=sa_1');
    expect(page.status).toBe(200);
    expect(page.headers['cache-control']).toBe('no-cache');
    expect(page.body.toString('utf8')).toContain('<title>Card Console</title>');
  });
});
