// The single sign-on routes at their edges, over real HTTP against a real OpenID Provider:
// where a refused or failed start sends the browser, what a return path may be, and how the
// rate-limited log line counts what it left out.

import { RETURN_TO_MAX } from '@card-console/shared/api/session';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { OneTimeStore } from '../../platform/security/one-time-store';
import { startTestApp, type TestApp } from '../../test/harness';
import {
  ssoPeople,
  startTestIdentityProvider,
  type TestIdentityProvider,
  walkToCallback,
} from '../../test/test-identity-provider';
import { limitedLog, safeReturnTo } from './sso-endpoints';

const publicOrigin = 'http://localhost:3000';
let idp: TestIdentityProvider;
beforeAll(async () => {
  idp = await startTestIdentityProvider(publicOrigin);
});
afterAll(async () => idp?.close());

describe('safeReturnTo', () => {
  it.each([
    [undefined, '/'],
    ['/cards?status=active', '/cards?status=active'],
    ['cards', '/'],
    ['//evil.example', '/'],
    ['/\\evil.example', '/'],
    ['/api/session', '/'],
    ['/sign-in', '/'],
    ['/sign-in?redirect=%2Fcards', '/'],
    ['/sign-inside', '/sign-inside'],
    ['/apix', '/apix'],
  ])('%s → %s', (given, expected) => {
    expect(safeReturnTo(given)).toBe(expected);
  });
});

describe('limitedLog', () => {
  afterEach(() => vi.useRealTimers());

  it('writes at most the given lines a minute, then counts what it left out into the next', async () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const lines: Record<string, unknown>[] = [];
    const log = limitedLog({ warn: (fields: object) => lines.push({ ...fields }) } as never, 2);
    for (let i = 0; i < 5; i++) log({ n: i }, 'line');
    await vi.advanceTimersByTimeAsync(0);
    expect(lines).toEqual([{ n: 0 }, { n: 1 }]);
    await vi.advanceTimersByTimeAsync(61_000);
    log({ n: 5 }, 'line');
    await vi.advanceTimersByTimeAsync(0);
    expect(lines.at(-1)).toEqual({ n: 5, suppressed: 3 });
    log({ n: 6 }, 'line');
    await vi.advanceTimersByTimeAsync(0);
    expect(lines.at(-1)).toEqual({ n: 6 });
  });
});

describe('starts that cannot go ahead', () => {
  const failing: OneTimeStore = {
    put: () => Promise.reject(new Error('store down')),
    take: () => Promise.resolve(undefined),
  };
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({
      sim: { transactions: 10 },
      identityProvider: idp,
      env: { rateLimits: { ssoStartsPerAddressPerMinute: 3 } },
      oneTimeStores: { ssoPendingStore: failing },
    });
  });
  afterAll(async () => t?.close());

  it('a pending sign-in that cannot be kept: back to sign-in (or the page, for a step-up), never JSON', async () => {
    const start = await t.request.get('/api/sso/start?returnTo=%2Fcards');
    expect(start.status).toBe(302);
    expect(start.headers.location).toBe('/sign-in?sso=unavailable');
    expect(t.logs.some((l) => l.includes('pending single sign-on not stored'))).toBe(true);
  });

  it('past the per-address limit (3 here), a sign-in start goes back to sign-in as busy', async () => {
    // One start was made above; two more are let through (and fail to be kept), then busy.
    const locations = [];
    for (let i = 0; i < 3; i++) {
      locations.push((await t.request.get('/api/sso/start')).headers.location);
    }
    expect(locations).toEqual([
      '/sign-in?sso=unavailable',
      '/sign-in?sso=unavailable',
      '/sign-in?sso=busy',
    ]);
    expect(t.logs.some((l) => l.includes('single sign-on starts from one address refused'))).toBe(
      true,
    );
  });
});

describe('a step-up start refused by the limit', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({
      sim: { transactions: 10 },
      identityProvider: idp,
      env: { rateLimits: { ssoStartsPerAddressPerMinute: 2 } },
    });
  });
  afterAll(async () => t?.close());

  it('goes back to the page it came from, with the step-up not done', async () => {
    const first = await walkToCallback(t.url, idp, ssoPeople.admin.email);
    const back = await t.ssoCallback(first.stopped, first.browser);
    const cookie = (back.headers['set-cookie'] as unknown as string[])
      .find((c) => c.startsWith('cc_session='))
      ?.split(';')[0];
    // One start used by the sign-in; the next is allowed, the one after refused.
    const headers = t.apiHeaders({ Cookie: cookie ?? '' });
    const allowed = await t.request.get('/api/sso/step-up?returnTo=%2Fcards').set(headers);
    expect(allowed.headers.location?.startsWith(idp.issuer)).toBe(true);
    const refused = await t.request.get('/api/sso/step-up?returnTo=%2Fcards').set(headers);
    expect(refused.headers.location).toBe('/cards?stepUp=failed');
    const long = `/cards?q=${'x'.repeat(RETURN_TO_MAX)}`;
    const tooLong = await t.request
      .get(`/api/sso/step-up?returnTo=${encodeURIComponent(long)}`)
      .set(headers);
    expect(tooLong.headers.location).toBe('/?stepUp=failed');
  });
});
