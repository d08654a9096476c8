import '@testing-library/jest-dom/vitest';
import { cleanup, configure } from '@testing-library/react';
import { afterAll, afterEach, beforeAll, beforeEach, vi } from 'vitest';
import { sentRequests, server } from './server';

// The whole workspace's tests share two cores in CI: a screen whose lazily loaded route chunk
// is still being transformed may need more than the default second to appear.
configure({ asyncUtilTimeout: 5_000 });

// jsdom has no scrolling; the router's scroll restoration calls this. (A test of the SPA's
// tooling runs without a window: lint-rule.test.ts.)
if (typeof window !== 'undefined') {
  window.scrollTo = vi.fn() as unknown as typeof window.scrollTo;
}

// Most files of a worker share its modules and its window (the `web` project runs them without
// isolation): each starts with empty storage and the real fetch.
const realFetch = globalThis.fetch;
beforeAll(() => {
  if (typeof window !== 'undefined') {
    window.localStorage.clear();
    window.sessionStorage.clear();
  }
  server.listen({ onUnhandledRequest: 'error' });
  // jsdom's File is not a Blob Node's fetch (or MSW's Request) knows: it would send "[object
  // File]". A browser sends a File body as its bytes; so does this, wrapped around MSW's fetch,
  // so an upload (a receipt) is tested as it goes.
  const mswFetch = globalThis.fetch;
  globalThis.fetch = async (input, init) =>
    init?.body instanceof Blob
      ? mswFetch(input, { ...init, body: new Uint8Array(await init.body.arrayBuffer()) })
      : mswFetch(input, init);
});
beforeEach(() => {
  sentRequests.length = 0;
});
afterEach(() => {
  cleanup();
  server.resetHandlers();
  vi.useRealTimers();
});
afterAll(() => {
  server.close();
  globalThis.fetch = realFetch;
});
