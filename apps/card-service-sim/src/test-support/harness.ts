import { errorBodySchema } from '@card-console/shared/upstream/common';
import { afterAll, beforeAll, expect } from 'vitest';
import { type CardService, type CardServiceOptions, createCardService } from '../index';

export const API_KEY = 'test-key';
/** A fixed clock, so generated data (anchored on "now") is the same on every run. */
export const FIXED_NOW = Date.UTC(2026, 10, 1, 12);
/** Every test request gives up after this long, so a hang fails instead of stalling. */
export const REQUEST_TIMEOUT_MS = 5_000;

/** Test replies are read loosely; the shared schemas check them where the shape matters. */
// biome-ignore lint/suspicious/noExplicitAny: deliberate, see above
export type LooseJson = any;

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  json: unknown;
}

export interface Harness {
  service: CardService;
  url: string;
  request(path: string, init?: RequestInit & { key?: string | null }): Promise<Reply>;
  get<T = LooseJson>(path: string): Promise<T>;
}

/** Starts a service on a loopback port for the enclosing describe block. */
export function useService(options: CardServiceOptions = {}): Harness {
  const harness = {} as Harness;
  beforeAll(async () => {
    const service = createCardService({
      apiKey: API_KEY,
      rateLimit: false,
      now: () => FIXED_NOW,
      ...options,
    });
    const { url } = await service.listen(0);
    harness.service = service;
    harness.url = url;
  });
  afterAll(() => harness.service.close());
  harness.request = async (path, init = {}) => {
    const { key = API_KEY, headers, ...rest } = init;
    const h = new Headers(headers);
    if (key !== null) h.set('x-api-key', key);
    const res = await fetch(harness.url + path, {
      ...rest,
      headers: h,
      redirect: 'manual',
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    const text = await res.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: res.status, headers: res.headers, text, json };
  };
  harness.get = async (path) => {
    const reply = await harness.request(path);
    expect(reply.status, `GET ${path} → ${reply.text.slice(0, 300)}`).toBe(200);
    return reply.json as LooseJson;
  };
  return harness;
}

/** Asserts a well-formed error body whose status matches the HTTP status. */
export function expectError(reply: Reply, status: number, code?: string): void {
  expect(reply.status, reply.text).toBe(status);
  expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
  const body = errorBodySchema.parse(reply.json);
  expect(body.status).toBe(status);
  expect(body.message.length).toBeGreaterThan(0);
  if (code) expect(body.code).toBe(code);
}

export const jsonInit = (method: string, body: unknown): RequestInit => ({
  method,
  headers: { 'content-type': 'application/json' },
  body: typeof body === 'string' ? body : JSON.stringify(body),
});

/** Follows nextCursor to the end, running `between` after each page. */
export async function collectPages<T>(
  h: Harness,
  path: string,
  between?: (page: number) => Promise<void>,
): Promise<{ items: T[]; pages: number }> {
  const items: T[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const sep = path.includes('?') ? '&' : '?';
    const page = await h.get<{ items: T[]; metadata: { nextCursor?: string; count: number } }>(
      cursor ? `${path}${sep}cursor=${encodeURIComponent(cursor)}` : path,
    );
    expect(page.metadata.count).toBe(page.items.length);
    items.push(...page.items);
    cursor = page.metadata.nextCursor;
    pages++;
    if (cursor && between) await between(pages);
    if (pages > 10_000) throw new Error('paging does not end');
  } while (cursor);
  return { items, pages };
}
