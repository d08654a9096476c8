// The series operators alert on besides traffic, each caused for real: sign-ins refused and
// locked out through the API, single sign-on callbacks against a real OpenID Provider,
// readiness read at scrape time, users-file reloads, exports running.
import { EventEmitter } from 'node:events';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NotReadyError, type ReadinessCheck } from '../../features/health/readiness';
import { withExportSlot } from '../../features/transactions/export-response';
import { startTestApp, type TestApp } from '../../test/harness';
import { parseSamples, sampleValue } from '../../test/scrape';
import {
  ssoPeople,
  startTestIdentityProvider,
  type TestIdentityProvider,
  walkToCallback,
} from '../../test/test-identity-provider';
import { buildTestUsers } from '../../test/test-users';
import { createLogger } from '../logger';
import { MemoryExportSlots } from '../security/export-slots';
import { UserDirectory } from '../users/user-directory';
import { watchUsersFile } from '../users/watch-users-file';
import { createPrometheusMetrics } from './prometheus-metrics';

const quiet = createLogger('silent');

async function scrape(registry: Registry) {
  const text = await registry.metrics();
  return { text, samples: parseSamples(text) };
}

describe('sign-in failures and lock-outs', () => {
  const registry = new Registry();
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({
      metrics: createPrometheusMetrics(registry),
      sim: { transactions: 10 },
      env: { rateLimits: { signInFailuresPerAccountAddress: 2 } },
    });
  });
  afterAll(() => t.close());

  const signIn = (body: Record<string, string>) =>
    t.request.post('/api/session').set(t.apiHeaders()).send(body);

  it('are counted by method and reason, and the limit that locked, never by who', async () => {
    const finance = t.credentials.finance;
    const admin = t.credentials.admin;
    const before = await scrape(registry);
    // Every pair is there at 0 before anything happens (an alert's increase() needs that).
    expect(
      before.samples.filter((s) => s.name === 'bff_sign_in_failures_total').map((s) => s.value),
    ).toEqual([0, 0, 0, 0, 0]);
    expect(sampleValue(before.samples, 'bff_sign_in_locked_out_total', { limit: 'account' })).toBe(
      0,
    );

    expect((await signIn({ email: 'nobody@example.test', password: 'guess' })).status).toBe(401);
    expect((await signIn({ email: finance.email, password: 'wrong one' })).status).toBe(401);
    expect((await signIn({ email: finance.email, password: 'wrong two' })).status).toBe(401);
    // The account at this address is full: refused unchecked.
    expect((await signIn({ email: finance.email, password: finance.password })).status).toBe(429);
    const code = t.adminTotp();
    const wrong = String((Number(code) + 1) % 1_000_000).padStart(6, '0');
    expect(
      (await signIn({ email: admin.email, password: admin.password, totp: wrong })).status,
    ).toBe(401);

    const { text, samples } = await scrape(registry);
    const failures = (method: string, reason: string) =>
      sampleValue(samples, 'bff_sign_in_failures_total', { method, reason });
    expect(failures('password', 'unknown_account')).toBe(1);
    expect(failures('password', 'bad_password')).toBe(2);
    expect(failures('password', 'account_disabled')).toBe(0);
    expect(failures('password+totp', 'bad_totp')).toBe(1);
    const locked = (limit: string) =>
      sampleValue(samples, 'bff_sign_in_locked_out_total', { limit });
    expect(locked('account_at_address')).toBe(1);
    expect(locked('address')).toBe(0);
    expect(locked('account')).toBe(0);
    expect(text).not.toContain('example.test');
    expect(text).not.toContain('nobody');
  });
});

describe('single sign-on callback failures', () => {
  const registry = new Registry();
  const publicOrigin = 'http://localhost:3000';
  let idp: TestIdentityProvider;
  let t: TestApp;
  beforeAll(async () => {
    idp = await startTestIdentityProvider(publicOrigin);
    t = await startTestApp({
      sim: { transactions: 10 },
      identityProvider: idp,
      metrics: createPrometheusMetrics(registry),
    });
  });
  afterAll(async () => {
    await t?.close();
    await idp?.close();
  });

  /** The provider's redirect back, with this browser's binding cookie. */
  async function back(url: string, browser: Awaited<ReturnType<typeof walkToCallback>>['browser']) {
    const binding = browser
      .cookieHeader(t.url)
      .split('; ')
      .filter((pair) => pair.startsWith('cc_sso='))
      .join('; ');
    const parsed = new URL(url);
    return t.request.get(`${parsed.pathname}${parsed.search}`).set('Cookie', binding);
  }
  const failures = async () => {
    const { samples } = await scrape(registry);
    return Object.fromEntries(
      samples
        .filter((s) => s.name === 'bff_sso_callback_failures_total')
        .map((s) => [s.labels.reason, s.value]),
    );
  };

  it('are counted by reason; a sign-in that works counts nothing', async () => {
    expect(Object.values(await failures())).toEqual([0, 0, 0, 0, 0, 0, 0]);

    const ok = await walkToCallback(t.url, idp, ssoPeople.finance.email);
    expect((await back(ok.stopped.url, ok.browser)).headers.location).toBe('/cards');
    expect(Object.values(await failures())).toEqual([0, 0, 0, 0, 0, 0, 0]);

    // Another state: no sign-in in progress.
    const forged = await walkToCallback(t.url, idp, ssoPeople.finance.email);
    const url = new URL(forged.stopped.url);
    url.searchParams.set('state', `${url.searchParams.get('state')}x`);
    expect((await back(url.toString(), forged.browser)).headers.location).toBe(
      '/sign-in?sso=failed',
    );
    // The provider sent an error back for a sign-in this browser started.
    const denied = new URL(forged.stopped.url);
    denied.search = `?state=${denied.searchParams.get('state')}&error=access_denied`;
    expect((await back(denied.toString(), forged.browser)).headers.location).toBe(
      '/sign-in?sso=failed',
    );
    // An ID token with a nonce the console never made.
    const tampered = await walkToCallback(t.url, idp, ssoPeople.finance.email, {
      tamper: (u) => u.searchParams.set('nonce', 'a-nonce-the-console-never-made'),
    });
    expect((await back(tampered.stopped.url, tampered.browser)).headers.location).toBe(
      '/sign-in?sso=failed',
    );
    // Groups that map to no role.
    const person = idp.people.get(ssoPeople.finance.email);
    if (!person) throw new Error('no such person');
    const groups = person.groups;
    person.groups = ['sales'];
    try {
      const unmapped = await walkToCallback(t.url, idp, person.email);
      expect((await back(unmapped.stopped.url, unmapped.browser)).headers.location).toBe(
        '/no-access',
      );
    } finally {
      person.groups = groups;
    }

    expect(await failures()).toEqual({
      unmatched: 1,
      provider_error: 1,
      token_refused: 1,
      identity_refused: 0,
      no_role: 1,
      step_up_refused: 0,
      error: 0,
    });
  });
});

describe('readiness per dependency', () => {
  const registry = new Registry();
  let t: TestApp;
  const database = { failing: false };
  const check: ReadinessCheck = {
    name: 'postgres',
    check: async () => {
      if (database.failing) throw new NotReadyError('PostgreSQL did not answer');
    },
  };
  beforeAll(async () => {
    t = await startTestApp({
      metrics: createPrometheusMetrics(registry),
      sim: { transactions: 10 },
      readiness: [check],
    });
  });
  afterAll(() => t.close());

  it('is read at scrape time, with nothing probing /readyz, from the checks /readyz shares', async () => {
    const ready = async (dependency: string) =>
      sampleValue((await scrape(registry)).samples, 'bff_dependency_ready', { dependency });
    const upstreamCalls = t.sim.stats.count('GET /sub-account');
    expect(await ready('upstream')).toBe(1);
    expect(await ready('postgres')).toBe(1);
    // Two scrapes within the checks' cache: one card-service call.
    expect(t.sim.stats.count('GET /sub-account')).toBe(upstreamCalls + 1);

    database.failing = true;
    t.clock.advance(60_000);
    expect(await ready('postgres')).toBe(0);
    expect(await ready('upstream')).toBe(1);
    // /readyz agrees.
    const res = await t.request.get('/readyz');
    expect(res.status).toBe(503);
    expect(res.body.checks).toMatchObject({
      upstream: 'ok',
      postgres: 'PostgreSQL did not answer',
    });

    await t.sim.close();
    t.clock.advance(60_000);
    expect(await ready('upstream')).toBe(0);
  });
});

describe('users-file reloads', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'bff-users-metrics-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true, maxRetries: 5 }));

  it('say whether the users in effect are the file as last read, and count the failures', async () => {
    const { usersFile } = await buildTestUsers('production', dir);
    const file = usersFile ?? '';
    const registry = new Registry();
    const watcher = watchUsersFile({
      directory: await UserDirectory.fromFile(file),
      file,
      logger: quiet,
      debounceMs: 60_000, // only reload() reads: no watch event races the steps below
      signals: new EventEmitter(),
      metrics: createPrometheusMetrics(registry),
    });
    const state = async () => {
      const { samples } = await scrape(registry);
      return {
        upToDate: sampleValue(samples, 'bff_users_file_up_to_date'),
        invalid: sampleValue(samples, 'bff_users_file_reload_failures_total', {
          reason: 'invalid',
        }),
        unreadable: sampleValue(samples, 'bff_users_file_reload_failures_total', {
          reason: 'unreadable',
        }),
      };
    };
    try {
      const good = await readFile(file, 'utf8');
      await watcher.reload();
      expect(await state()).toEqual({ upToDate: 1, invalid: 0, unreadable: 0 });

      await writeFile(file, '{"users": "not a list"}');
      await watcher.reload();
      expect(await state()).toEqual({ upToDate: 0, invalid: 1, unreadable: 0 });

      await rm(file);
      await watcher.reload();
      expect(await state()).toEqual({ upToDate: 0, invalid: 1, unreadable: 1 });

      await writeFile(file, good);
      await watcher.reload();
      expect(await state()).toEqual({ upToDate: 1, invalid: 1, unreadable: 1 });
    } finally {
      watcher.close();
    }
  });

  it('without a users file there is no up-to-date series to alert on', async () => {
    const registry = new Registry();
    createPrometheusMetrics(registry);
    expect((await scrape(registry)).text).not.toContain('bff_users_file_up_to_date');
  });
});

describe('exports in progress', () => {
  it('count an export while it runs, however it ends', async () => {
    const registry = new Registry();
    const deps = {
      exportSlots: new MemoryExportSlots({ perPerson: 2, total: 4 }),
      metrics: createPrometheusMetrics(registry),
      logger: createLogger('silent'),
    };
    // The response each export streams to (its close would give the slot back too).
    const res = new EventEmitter() as EventEmitter & { destroy(): void };
    res.destroy = () => {};
    const person = {
      requestId: 'r-1',
      actor: { email: 'pat@example.test', role: 'finance' as const },
    };
    const running = async () =>
      sampleValue((await scrape(registry)).samples, 'bff_csv_exports_in_progress');

    expect(await running()).toBe(0);
    let seen: number[] = [];
    await withExportSlot(deps, person, res, async () => {
      seen.push(await running());
      await withExportSlot(deps, { ...person, requestId: 'r-2' }, res, async () => {
        seen.push(await running());
      });
    });
    expect(seen).toEqual([1, 2]);
    expect(await running()).toBe(0);

    seen = [];
    await expect(
      withExportSlot(deps, person, res, async () => {
        seen.push(await running());
        throw new Error('the walk failed');
      }),
    ).rejects.toThrow('the walk failed');
    expect(seen).toEqual([1]);
    expect(await running()).toBe(0);
  });
});
