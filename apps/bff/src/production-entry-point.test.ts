// The production entry point (the bundle, the embedded engine, a users file) as a deployment
// runs it, one process for the file: what the server's own composition decides and no test app
// shows. A CSV download writes nothing to stderr: the export's pipe adds 'close' listeners of
// its own to the response, which with the server's made eleven, one past Node's default, and
// Node printed "Possible EventEmitter memory leak detected" on every download. A person removed
// on the People screen takes their receipt inbox and alert rules with them (decision 0128): the
// server made its own people store without what a removal takes, so they were kept, and the
// next person given that email found them waiting.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CardService, createCardService } from '@card-console/card-service-sim';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { embeddedEngine } from './platform/sql/sql-engine';
import { type BffProcess, productionEnv, startBffProcess } from './test/engines/bff-process';
import { pdfReceipt } from './test/receipt-files';
import { buildTestUsers, type TestCredentials } from './test/test-users';
import { totpCodeAt } from './test/totp-source';

const origin = 'https://cards.example.test';
let dir: string;
let sim: CardService;
let bff: BffProcess | undefined;
let admin: Required<TestCredentials>;
let finance: TestCredentials;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'bff-production-'));
  const apiKey = `test-key-${randomBytes(16).toString('hex')}`;
  sim = createCardService({ apiKey, transactions: 300 });
  const { url } = await sim.listen(0, '127.0.0.1');
  const users = await buildTestUsers('production', dir);
  admin = users.credentials.admin as Required<TestCredentials>;
  finance = users.credentials.finance;
  bff = await startBffProcess(
    productionEnv({
      cardServiceUrl: url,
      apiKey,
      usersFile: users.usersFile,
      origin,
      dataDir: dir,
    }),
  );
}, 120_000);
afterAll(async () => {
  bff?.kill('SIGKILL');
  await sim?.close();
  await rm(dir, { recursive: true, force: true, maxRetries: 5 });
});

/** A call to the process as a browser of the site makes it, with `cookie` when given. */
async function call(path: string, init: RequestInit & { cookie?: string } = {}) {
  const { cookie, ...rest } = init;
  return fetch(`${bff?.url}${path}`, {
    ...rest,
    headers: {
      'X-CSRF': '1',
      Origin: origin,
      Accept: 'application/json',
      ...(cookie ? { Cookie: cookie } : {}),
      ...(rest.headers as Record<string, string>),
    },
  });
}

async function signIn(who: TestCredentials): Promise<string> {
  const res = await call('/api/session', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({
      email: who.email,
      password: who.password,
      ...(who.totpSecret ? { totp: totpCodeAt(who.totpSecret, Date.now()) } : {}),
    }),
  });
  expect(res.status, await res.clone().text()).toBe(200);
  const line = res.headers.getSetCookie().find((c) => /^(__Host-)?cc_session=/.test(c));
  return (line ?? '').split(';')[0] as string;
}

describe('a CSV download on the production entry point', () => {
  it('streams the file and warns of nothing', async () => {
    const cookie = await signIn(finance);
    const sub = sim.data.subAccounts()[0];
    for (let i = 0; i < 3; i++) {
      const res = await call(
        `/api/transactions/export.csv?subAccountId=${encodeURIComponent(sub?.id ?? '')}`,
        { cookie },
      );
      expect(res.status).toBe(200);
      expect((await res.text()).trim().split('\n').length).toBeGreaterThan(50);
    }
    expect(bff?.stderr).not.toMatch(/MaxListenersExceededWarning|memory leak/);
  }, 120_000);
});

describe('a person removed on the People screen', () => {
  it('takes their receipt inbox and their alert rules with them, said in the record', async () => {
    const theirs = await signIn(finance);
    for (const name of ['lunch.pdf', 'taxi.pdf']) {
      const up = await call('/api/receipt-inbox', {
        method: 'POST',
        cookie: theirs,
        headers: { 'Content-Type': 'application/octet-stream', 'X-File-Name': name },
        body: Buffer.concat([pdfReceipt(), Buffer.from(name)]),
      });
      expect(up.status, await up.clone().text()).toBe(201);
    }
    const rule = await call('/api/alerts/rules', {
      method: 'POST',
      cookie: theirs,
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        kind: 'declined',
        name: 'My declines',
        channels: { inbox: true, email: false },
      }),
    });
    expect(rule.status, await rule.clone().text()).toBe(201);

    const admins = await signIn(admin);
    const removed = await call(`/api/people/${encodeURIComponent(finance.email)}`, {
      method: 'DELETE',
      cookie: admins,
    });
    expect(removed.status, await removed.clone().text()).toBe(204);
    const audit = await call('/api/audit', { cookie: admins });
    expect(audit.status, await audit.clone().text()).toBe(200);
    const record = (
      (await audit.json()) as { items: { action: string; detail?: string }[] }
    ).items.find((r) => r.action === 'person.remove');
    expect(record?.detail).toContain('with them: 2 receipts in their inbox, not attached');
    expect(record?.detail).toContain('1 alert rule');

    // Stopped, its database read as it was left.
    bff?.kill('SIGTERM');
    await bff?.exited;
    bff = undefined;
    const engine = await embeddedEngine(join(dir, 'transaction-index'));
    try {
      const count = async (sql: string) =>
        ((await engine.query<{ n: number }>(sql, [finance.email]))[0] as { n: number }).n;
      expect(
        await count('SELECT count(*)::int AS n FROM receipt_inbox_item WHERE owner = $1'),
      ).toBe(0);
      expect(await count('SELECT count(*)::int AS n FROM alert_rule WHERE owner_email = $1')).toBe(
        0,
      );
    } finally {
      await engine.close();
    }
  }, 180_000);
});
