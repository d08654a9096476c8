import * as oidc from 'openid-client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { freePort } from '../../test/engines/free-port';
import { testPan } from '../../test/test-pan';
import {
  discoveryOptions,
  failureWithCauses,
  identityEmail,
  mapRole,
  RelyingParty,
  verifiedClaim,
} from './relying-party';

describe('verifiedClaim', () => {
  it('gives email and phone_number only when their _verified claim is exactly true', () => {
    const email = 'ops@example.test';
    expect(verifiedClaim({ email, email_verified: true }, 'email')).toBe(email);
    for (const flag of [undefined, false, 'true', 'false', 1, null]) {
      expect(verifiedClaim({ email, email_verified: flag }, 'email')).toBeUndefined();
    }
    expect(verifiedClaim({ phone_number: '+1', phone_number_verified: true }, 'phone_number')).toBe(
      '+1',
    );
    expect(verifiedClaim({ phone_number: '+1' }, 'phone_number')).toBeUndefined();
    // The other claim's flag does not vouch for this one.
    expect(verifiedClaim({ email, phone_number_verified: true }, 'email')).toBeUndefined();
  });

  it('reads email’s flag from the claim the provider uses (Entra ID: xms_edov)', () => {
    const email = 'ops@example.test';
    expect(verifiedClaim({ email, xms_edov: true }, 'email', 'xms_edov')).toBe(email);
    expect(verifiedClaim({ email, email_verified: true }, 'email', 'xms_edov')).toBeUndefined();
    expect(verifiedClaim({ email, xms_edov: 'true' }, 'email', 'xms_edov')).toBeUndefined();
  });

  it('gives any other claim as the provider sent it', () => {
    expect(verifiedClaim({ groups: ['a', 'b'] }, 'groups')).toEqual(['a', 'b']);
    expect(verifiedClaim({}, 'roles')).toBeUndefined();
  });

  it('an unverified email maps to no role, a verified one to its role', () => {
    const roleMap = { 'boss@example.test': 'admin' } as const;
    const claims = { email: 'boss@example.test' };
    expect(mapRole(verifiedClaim(claims, 'email'), roleMap)).toBeUndefined();
    expect(mapRole(verifiedClaim({ ...claims, email_verified: true }, 'email'), roleMap)).toBe(
      'admin',
    );
  });
});

describe('discoveryOptions', () => {
  it('allows plain http only for an http issuer, and bounds every call to 10 s', () => {
    expect(discoveryOptions(new URL('https://login.example.test/tenant/v2.0'))).toEqual({
      timeout: 10,
    });
    expect(discoveryOptions(new URL('http://127.0.0.1:4000'))).toEqual({
      timeout: 10,
      execute: [oidc.allowInsecureRequests],
    });
  });
});

describe('mapRole', () => {
  const roleMap = { 'cc-finance': 'finance', 'cc-admins': 'admin', '42': 'admin' } as const;

  it('maps a value, or any value of a list, admin winning wherever it stands', () => {
    expect(mapRole('cc-finance', roleMap)).toBe('finance');
    expect(mapRole(['cc-admins', 'cc-finance'], roleMap)).toBe('admin');
    expect(mapRole(['cc-finance', 'cc-admins'], roleMap)).toBe('admin');
  });

  it('passes over values it does not map, and values that are no text', () => {
    expect(mapRole(['cc-finance', 'someone-else'], roleMap)).toBe('finance');
    expect(mapRole(['someone-else', 'cc-finance', 'toString'], roleMap)).toBe('finance');
    expect(mapRole([42], roleMap)).toBeUndefined();
    expect(mapRole(['cc-finance', 42], roleMap)).toBe('finance');
    expect(mapRole(undefined, roleMap)).toBeUndefined();
    expect(mapRole([], roleMap)).toBeUndefined();
  });
});

describe('identityEmail', () => {
  it('is the address trimmed and lower-cased', () => {
    expect(identityEmail('  Ops@Example.TEST ')).toBe('ops@example.test');
  });

  it.each([
    ['not a string', 42],
    ['not an address', 'ops'],
    ['a right-to-left override', 'op\u202Es@example.test'],
    ['a zero-width joiner', 'op\u200Ds@example.test'],
    ['a line break', 'ops@exa\nmple.test'],
    ['a tab inside', 'o\tps@example.test'],
    ['a NUL', 'o\u0000ps@example.test'],
    ['a line separator', 'o\u2028ps@example.test'],
    ['too long', `${'a'.repeat(250)}@example.test`],
  ])('refuses %s', (_, value) => {
    expect(identityEmail(value)).toBeUndefined();
  });

  it('refuses an address holding a card number', () => {
    expect(identityEmail(`${testPan(7)}@example.test`)).toBeUndefined();
    expect(identityEmail('1234567890@example.test')).toBe('1234567890@example.test');
  });
});

describe('failureWithCauses', () => {
  it('follows the causes undici hides under "fetch failed", with their codes', () => {
    const tls = Object.assign(new Error('self-signed certificate in certificate chain'), {
      code: 'SELF_SIGNED_CERT_IN_CHAIN',
    });
    const error = new TypeError('fetch failed', { cause: tls });
    expect(failureWithCauses(error)).toBe(
      'fetch failed: self-signed certificate in certificate chain (SELF_SIGNED_CERT_IN_CHAIN)',
    );
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), {
      code: 'ECONNREFUSED',
    });
    expect(failureWithCauses(new TypeError('fetch failed', { cause: refused }))).toBe(
      'fetch failed: connect ECONNREFUSED 127.0.0.1:9',
    );
  });

  it('is bounded, and stops at a cycle of causes', () => {
    const a: Error & { cause?: unknown } = new Error('a'.repeat(300));
    a.cause = a;
    const text = failureWithCauses(a);
    expect(text.length).toBeLessThanOrEqual(400);
    expect(failureWithCauses('plain')).toBe('plain');
  });

  it('stops at a cause that is null, and after five errors', () => {
    expect(failureWithCauses(Object.assign(new Error('outer'), { cause: null }))).toBe('outer');
    let chain: Error = new Error('e7');
    for (let i = 6; i >= 1; i--) chain = new Error(`e${i}`, { cause: chain });
    expect(failureWithCauses(chain)).toBe('e1: e2: e3: e4: e5');
  });
});

describe('discovery in the background', () => {
  afterEach(() => vi.useRealTimers());

  /** Real time passes (the refused connection), fake timers stand still. */
  async function until(check: () => boolean) {
    const end = performance.now() + 5_000;
    while (!check() && performance.now() < end) await new Promise((r) => setImmediate(r));
    expect(check()).toBe(true);
  }

  it('tries again after 2 s, then twice as long each time, logging each failure with its cause, until stopped', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const issuer = `http://127.0.0.1:${await freePort()}`;
    const rp = new RelyingParty({
      issuer,
      clientId: 'client',
      clientSecret: 'secret',
      roleClaim: 'groups',
      roleMap: { admins: 'admin' },
      scopes: ['email'],
      label: 'Test',
    });
    const errors: Record<string, unknown>[] = [];
    const infos: string[] = [];
    const stop = rp.discoverInBackground({
      info: (_fields, message) => infos.push(message),
      error: (fields, message) => errors.push({ ...fields, message }),
    });
    expect(rp.discoveryState()).toEqual({ discovered: false, failure: undefined });
    await until(() => errors.length === 1);
    expect(errors[0]).toMatchObject({
      message: 'identity provider discovery failed',
      issuer,
      retryInSeconds: 2,
      cause: expect.stringContaining('ECONNREFUSED'),
    });
    expect(rp.discoveryState()).toMatchObject({
      discovered: false,
      failure: expect.stringContaining('ECONNREFUSED'),
    });
    await vi.advanceTimersByTimeAsync(1_999);
    expect(errors).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    await until(() => errors.length === 2);
    expect(errors[1]).toMatchObject({ retryInSeconds: 4 });
    stop();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(errors).toHaveLength(2);
    expect(infos).toEqual([]);
  });

  it('never waits more than five minutes between tries', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const rp = new RelyingParty({
      issuer: `http://127.0.0.1:${await freePort()}`,
      clientId: 'client',
      clientSecret: 'secret',
      roleClaim: 'groups',
      roleMap: { admins: 'admin' },
      scopes: [],
      label: 'Test',
    });
    const waits: unknown[] = [];
    const stop = rp.discoverInBackground({
      info: () => {},
      error: (fields) => waits.push((fields as { retryInSeconds: unknown }).retryInSeconds),
    });
    // Each advance also lets the refused connections of the tries it starts come back.
    for (let i = 0; i < 6; i++) await vi.advanceTimersByTimeAsync(300_000);
    await until(() => waits.length >= 10);
    stop();
    expect(waits.slice(0, 10)).toEqual([2, 4, 8, 16, 32, 64, 128, 256, 300, 300]);
    expect(waits.every((w) => typeof w === 'number' && w <= 300)).toBe(true);
  });
});
