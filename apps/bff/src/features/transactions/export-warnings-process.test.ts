// A download on the production entry point (the bundle, on the runtime the test runs on) writes
// nothing to stderr: each export pipes its rows into the response, and the pipe's own 'close'
// listeners with the server's made eleven on it, one past Node's default, so Node printed
// "Possible EventEmitter memory leak detected" on every CSV an operator's users downloaded.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CardService, createCardService } from '@card-console/card-service-sim';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BffProcess, startBffProcess } from '../../test/engines/bff-process';
import { buildTestUsers, type TestCredentials } from '../../test/test-users';

const origin = 'https://cards.example.test';
let dir: string;
let sim: CardService;
let bff: BffProcess | undefined;
let finance: TestCredentials;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'bff-export-'));
  const apiKey = `test-key-${randomBytes(16).toString('hex')}`;
  sim = createCardService({ apiKey, transactions: 300 });
  const { url } = await sim.listen(0, '127.0.0.1');
  const users = await buildTestUsers('production', dir);
  finance = users.credentials.finance;
  bff = await startBffProcess({
    CARD_API_BASE_URL: url,
    CARD_API_KEY: apiKey,
    USERS_FILE: users.usersFile ?? '',
    SESSION_SECRET: randomBytes(32).toString('hex'),
    TOTP_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    PUBLIC_ORIGIN: origin,
    DATA_DIR: dir,
    WEB_DIST: join(dir, 'no-web-dist'),
  });
}, 120_000);
afterAll(async () => {
  bff?.kill('SIGKILL');
  await sim?.close();
  await rm(dir, { recursive: true, force: true, maxRetries: 5 });
});

describe('a CSV download on the production entry point', () => {
  it('streams the file and warns of nothing', async () => {
    const p = bff as BffProcess;
    const signIn = await fetch(`${p.url}/api/session`, {
      method: 'POST',
      headers: { 'X-CSRF': '1', Origin: origin, 'Content-Type': 'application/json' },
      body: JSON.stringify({ email: finance.email, password: finance.password }),
    });
    expect(signIn.status, await signIn.clone().text()).toBe(200);
    const cookie = (
      signIn.headers.getSetCookie().find((c) => /^(__Host-)?cc_session=/.test(c)) ?? ''
    ).split(';')[0] as string;
    const sub = sim.data.subAccounts()[0];
    for (let i = 0; i < 3; i++) {
      const res = await fetch(
        `${p.url}/api/transactions/export.csv?subAccountId=${encodeURIComponent(sub?.id ?? '')}`,
        { headers: { 'X-CSRF': '1', Origin: origin, Cookie: cookie } },
      );
      expect(res.status).toBe(200);
      const lines = (await res.text()).trim().split('\n');
      expect(lines.length).toBeGreaterThan(50);
    }
    expect(p.stderr).not.toMatch(/MaxListenersExceededWarning|memory leak/);
  }, 120_000);
});
