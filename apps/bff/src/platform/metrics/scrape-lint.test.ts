// A real replica in production mode, as its own node process with PostgreSQL: after a few requests
// its metrics port's text passes `promtool check metrics` with nothing to say, carries the
// series the alerts read, and a fresh start has recorded no store error.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CardService, createCardService } from '@card-console/card-service-sim';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateAsOwner, prepareAuditDatabase } from '../../test/engines/audit-database';
import { type BffProcess, productionEnv, startBffProcess } from '../../test/engines/bff-process';
import { type PostgresEngine, startPostgres } from '../../test/engines/postgres';
import { prometheusDir, promtool } from '../../test/engines/promtool';
import { parseSamples, type Sample, sampleValue } from '../../test/scrape';
import { buildTestUsers } from '../../test/test-users';
import { MISNAMED_DEFAULT_GAUGES } from './process-registry';

const origin = 'https://cards.example.test';
let dir: string;
let sim: CardService;
let postgres: PostgresEngine;
let bff: BffProcess;
let text: string;
let samples: Sample[];

async function until<T>(find: () => T | undefined, what: string): Promise<T> {
  for (let i = 0; i < 600; i++) {
    const found = find();
    if (found !== undefined) return found;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`never saw ${what}`);
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'bff-scrape-'));
  postgres = await startPostgres();
  const database = await prepareAuditDatabase(postgres, 'card_console');
  await migrateAsOwner(database.ownerUrl);
  const apiKey = `test-key-${randomBytes(16).toString('hex')}`;
  sim = createCardService({ apiKey, transactions: 200 });
  const { url } = await sim.listen(0, '127.0.0.1');
  const users = await buildTestUsers('production', dir);
  bff = await startBffProcess(
    productionEnv(
      { cardServiceUrl: url, apiKey, usersFile: users.usersFile, origin, dataDir: dir },
      { DATABASE_URL: database.appUrl, METRICS_PORT: '0' },
    ),
  );
  const served = await until(
    () => bff.logs.find((l) => l.msg === 'Prometheus metrics are served'),
    'the metrics line',
  );

  // A few requests of each kind, so that their series exist: a sign-in refused and one that
  // works, API reads, a 404, the probes.
  const finance = users.credentials.finance;
  const signIn = (password: string) =>
    fetch(`${bff.url}/api/session`, {
      method: 'POST',
      headers: { 'X-CSRF': '1', Origin: origin, 'Content-Type': 'application/json' },
      body: JSON.stringify({ email: finance.email, password }),
    });
  expect((await signIn('not the password')).status).toBe(401);
  const signedIn = await signIn(finance.password);
  expect(signedIn.status).toBe(200);
  const cookie = (signedIn.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  const api = (path: string) =>
    fetch(`${bff.url}${path}`, { headers: { 'X-CSRF': '1', Cookie: cookie } });
  expect((await api('/api/cards')).status).toBe(200);
  expect((await api('/api/sub-accounts')).status).toBe(200);
  expect((await api('/api/no-such-thing')).status).toBe(404);
  expect((await fetch(`${bff.url}/healthz`)).status).toBe(200);
  expect((await fetch(`${bff.url}/readyz`)).status).toBe(200);

  const res = await fetch(String(served.metrics));
  expect(res.status).toBe(200);
  text = await res.text();
  samples = parseSamples(text);
}, 120_000);

afterAll(async () => {
  bff?.kill('SIGKILL');
  await bff?.exited;
  await sim?.close();
  await postgres?.destroy();
  await rm(dir, { recursive: true, force: true, maxRetries: 5 });
});

describe("a running replica's scrape", () => {
  it('passes promtool check metrics with no warning', async () => {
    expect(samples.length).toBeGreaterThan(50);
    const result = await promtool(['check', 'metrics'], { input: text });
    expect(`${result.stdout}${result.stderr}`).toBe('');
    expect(result.code).toBe(0);
    for (const name of MISNAMED_DEFAULT_GAUGES) expect(text).not.toContain(`${name} `);
    // What they counted is still there, by type.
    expect(samples.some((s) => s.name === 'nodejs_active_handles')).toBe(true);
  });

  it('after a start with PostgreSQL, holds no failed store operation', () => {
    const calls = samples.filter(
      (s) =>
        s.name === 'bff_store_operation_duration_seconds_count' && s.labels.engine === 'postgres',
    );
    expect(calls.filter((s) => s.labels.outcome === 'ok').length).toBeGreaterThan(0);
    expect(calls.filter((s) => s.labels.outcome !== 'ok')).toEqual([]);
    // The shared stores report theirs by store: a sign-in wrote a session and spent limits.
    const operations = new Set(calls.map((s) => s.labels.operation));
    expect(operations).toContain('session.query');
    expect([...operations].some((op) => op?.startsWith('rate_limit.'))).toBe(true);
  });

  it('says what is running, and whether each dependency is ready', () => {
    const build = samples.find((s) => s.name === 'card_console_build_info');
    expect(build?.value).toBe(1);
    expect(build?.labels.node).toBe(process.version);
    const bffPackage = JSON.parse(readFileSync(join(__dirname, '../../../package.json'), 'utf8'));
    expect(build?.labels.version).toBe(bffPackage.version ?? 'unversioned');
    for (const dependency of ['upstream', 'postgres']) {
      expect(sampleValue(samples, 'bff_dependency_ready', { dependency }), dependency).toBe(1);
    }
  });

  it('counts the refused sign-in by method and reason, never by who', () => {
    expect(
      sampleValue(samples, 'bff_sign_in_failures_total', {
        method: 'password',
        reason: 'bad_password',
      }),
    ).toBe(1);
    expect(
      sampleValue(samples, 'bff_sign_in_failures_total', {
        method: 'password',
        reason: 'unknown_account',
      }),
    ).toBe(0);
    expect(text).not.toContain('@example.test');
    expect(sampleValue(samples, 'bff_users_file_up_to_date')).toBe(1);
    expect(sampleValue(samples, 'bff_csv_exports_in_progress')).toBe(0);
  });

  it('reports the alert outbox at scrape time, nothing pending, and no index sync owed', () => {
    for (const channel of ['email', 'webhook', 'digest']) {
      const labels = { channel };
      const present = (name: string) =>
        samples.some((s) => s.name === name && s.labels.channel === channel);
      expect(present('bff_alert_deliveries_pending'), channel).toBe(true);
      expect(present('bff_alert_delivery_oldest_pending_seconds'), channel).toBe(true);
      expect(sampleValue(samples, 'bff_alert_deliveries_pending', labels)).toBe(0);
    }
    expect(samples.some((s) => s.name === 'bff_index_sync_lag_seconds')).toBe(true);
    expect(sampleValue(samples, 'bff_index_syncs_total', { outcome: 'failed' })).toBe(0);
  });

  it('exposes every series the alert rules read', () => {
    const rules = readFileSync(join(prometheusDir, 'card-console.rules.yml'), 'utf8');
    const used = new Set(
      [...rules.matchAll(/\b((?:bff|card_console)_[a-z_]+)\b/g)].map((m) => m[1] ?? ''),
    );
    expect(used.size).toBeGreaterThan(5);
    const declared = new Set([...text.matchAll(/^# TYPE (\S+) (\w+)$/gm)].map((m) => m[1]));
    for (const name of used) {
      // A histogram's _bucket and _count series are declared under its own name.
      const family = name.replace(/_(bucket|count|sum)$/, '');
      expect(declared.has(name) || declared.has(family), name).toBe(true);
    }
  });

  it('names every series of its own in the README that lists them, as observability.md says', () => {
    // An operator's review found eight series the README left out (the walks' pace, a running
    // sync's progress), one of them what an alert reads.
    const readme = readFileSync(join(prometheusDir, 'README.md'), 'utf8');
    const ours = [...text.matchAll(/^# TYPE ((?:bff|card_console)_\S+) \w+$/gm)].map((m) => m[1]);
    expect(ours.length).toBeGreaterThan(20);
    const listed = ours.filter((name) => readme.includes(`\`${name}\``));
    expect(listed).toEqual(ours);
  });
});
