// The real entry points: the demo's (src/demo/main.ts, as `pnpm start` runs it) starting up and
// shutting down, and the production one (src/index.ts) refusing what it must.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startIdentityProvider } from './demo/identity-provider';
import { demoScrypt, hashPassword } from './platform/users/password-hash';
import { freePort } from './test/engines/free-port';

const appDir = join(dirname(fileURLToPath(import.meta.url)), '..');

let dir: string;
let child: ChildProcess | undefined;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'bff-index-'));
});
afterEach(async () => {
  // The whole group, even once the entry itself has exited: nothing may go on writing in the data
  // directory.
  if (child?.pid)
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      // ESRCH: the group has already gone.
    }
  // The demo's embedded database leaves thousands of files; rm's retries ride out a directory that
  // reads as not yet empty on an overlay file system (ENOTEMPTY), as Node's documentation advises.
  await rm(dir, { recursive: true, force: true, maxRetries: 5 });
});

const production = 'src/index.ts';
const demo = 'src/demo/main.ts';

function start(env: Record<string, string>, entry = production) {
  // Node itself runs the entry, with tsx as its loader: tsx's command line would run it in a child
  // and relay signals, and on a loaded machine that relay gives the child 30 ms to acknowledge a
  // SIGTERM before killing it and exiting 143, which is not the shutdown under test.
  const proc = spawn(process.execPath, ['--import', 'tsx', entry], {
    cwd: appDir,
    env: { PATH: process.env.PATH ?? '', DATA_DIR: dir, WEB_DIST: join(dir, 'none'), ...env },
    detached: true,
  });
  child = proc;
  let output = '';
  proc.stdout.on('data', (chunk) => {
    output += chunk;
  });
  proc.stderr.on('data', (chunk) => {
    output += chunk;
  });
  const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
  const waitFor = async (pattern: RegExp, ms = 60_000) => {
    for (let i = 0; i < ms / 50 && !pattern.test(output); i++)
      await new Promise((r) => setTimeout(r, 50));
    return output;
  };
  return { proc, exited, waitFor, output: () => output };
}

// Each test starts the entry as a process (tsx compiles it at start): on a loaded machine that
// alone can take longer than the project's 30 s, so the waits below, not Vitest's default, bound
// them; each wait returns as soon as what it waits for is there.
describe('src/demo/main.ts and src/index.ts', { timeout: 120_000 }, () => {
  it('starts in demo mode, logs the URL (never the key), serves, and stops on SIGTERM', async () => {
    const app = start({ DEMO_MODE: '1', PORT: '0' }, demo);
    const out = await app.waitFor(/is up: open (http:\/\/localhost:\d+)/);
    const url = /is up: open (http:\/\/localhost:\d+)/.exec(out)?.[1] ?? '';
    expect(url).not.toBe('');
    const base = url.replace('localhost', '127.0.0.1');
    const meta = await fetch(`${base}/api/meta`, {
      headers: { 'X-CSRF': '1' },
    });
    expect(((await meta.json()) as { mode: string }).mode).toBe('demo');
    // An address past Node's 16 KiB head is refused by its parser, before the app: as a problem.
    const long = await fetch(`${base}/api/meta?${'a=1&'.repeat(5_000)}`, {
      headers: { 'X-CSRF': '1' },
    });
    expect(long.status).toBe(431);
    expect(long.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(((await long.json()) as { code: string }).code).toBe('bad_request');
    const page = await fetch(base, {
      headers: { Accept: 'text/html' },
    });
    expect(await page.text()).toContain('not built');
    // Ready once the embedded database has opened and taken the demo's people: until then
    // /readyz names it, so nothing waiting for readiness meets a first sign-in held by initdb.
    let ready = await fetch(`${base}/readyz`);
    for (let tries = 0; ready.status !== 200 && tries < 120; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      ready = await fetch(`${base}/readyz`);
    }
    expect(await ready.json()).toEqual({
      status: 'ready',
      checks: { upstream: 'ok', database: 'ok', identityProvider: 'ok' },
    });
    app.proc.kill('SIGTERM');
    expect(await app.exited).toBe(0);
    expect(app.output()).toMatch(/"stopped"/);
    expect(app.output()).not.toMatch(/apiKey|x-api-key/i);
  });

  it('production refuses demo mode: it has no simulator to start, and says where demo mode is', async () => {
    const app = start({ DEMO_MODE: '1', PORT: '0' });
    expect(await app.exited).toBe(1);
    expect(app.output()).toContain('pnpm start');
    expect(app.output()).not.toMatch(/is up/);
  });

  it.each([
    ['src/index.ts', production],
    // A set CARD_API_BASE_URL overrides DEMO_MODE: the demo entry is then production, too.
    ['src/demo/main.ts with DEMO_MODE=1', demo],
  ])('%s refuses to start in production without a key, naming the variable', async (_, entry) => {
    const app = start(
      {
        DEMO_MODE: '1',
        CARD_API_BASE_URL: 'https://cards.example.com',
        USERS_FILE: join(dir, 'u.json'),
      },
      entry,
    );
    expect(await app.exited).toBe(1);
    expect(app.output()).toContain('CARD_API_KEY');
  });

  it('refuses to start in production with a demo account in the users file', async () => {
    const file = join(dir, 'users.json');
    const passwordHash = await hashPassword('demo-password', demoScrypt);
    await writeFile(
      file,
      JSON.stringify([{ email: 'finance@demo.test', role: 'finance', passwordHash }]),
    );
    const app = start({
      CARD_API_BASE_URL: 'https://cards.example.com',
      CARD_API_KEY: 'a-key',
      USERS_FILE: file,
      SESSION_SECRET: 'x'.repeat(40),
      TOTP_ENCRYPTION_KEY: 'a'.repeat(64),
      PUBLIC_ORIGIN: 'https://console.example.com',
    });
    expect(await app.exited).toBe(1);
    expect(app.output()).toMatch(/USERS_FILE: .*demo account/);
  });

  it('discovers the identity provider at start-up: an unreachable one is logged with its cause, named in /readyz, and tried again until it answers', async () => {
    const port = await freePort();
    const issuer = `http://127.0.0.1:${port}`;
    const app = start(
      {
        DEMO_MODE: '1',
        PORT: '0',
        OIDC_ISSUER: issuer,
        OIDC_CLIENT_ID: 'card-console-test',
        OIDC_CLIENT_SECRET: 'a-client-secret-for-tests',
        OIDC_ROLE_MAP: 'cc-finance=finance',
      },
      demo,
    );
    const out = await app.waitFor(/identity provider discovery failed/);
    const failure = out
      .split('\n')
      .map((line) => (line.startsWith('{') ? JSON.parse(line) : {}))
      .find((line) => line.msg === 'identity provider discovery failed');
    // Not only "fetch failed": the reason underneath.
    expect(failure).toMatchObject({ issuer, cause: expect.stringContaining('ECONNREFUSED') });
    const url = (
      /is up: open (http:\/\/localhost:\d+)/.exec(await app.waitFor(/is up/))?.[1] ?? ''
    ).replace('localhost', '127.0.0.1');
    const startLine = app
      .output()
      .split('\n')
      .find((line) => line.includes('is up'));
    expect(JSON.parse(startLine ?? '{}')).toMatchObject({
      signIn: ['users file', 'single sign-on'],
      sso: { issuer, discovered: false },
    });
    const notReady = await fetch(`${url}/readyz`);
    expect(notReady.status).toBe(503);
    expect(JSON.stringify(await notReady.json())).toContain('identity provider');

    const provider = await startIdentityProvider({
      port,
      clients: [
        {
          clientId: 'card-console-test',
          clientSecret: 'a-client-secret-for-tests',
          redirectUris: [`${url}/api/sso/callback`],
          postLogoutRedirectUris: [`${url}/sign-in`],
        },
      ],
      findPerson: () => undefined,
      checkPassword: () => false,
      onError: () => {},
    });
    try {
      await app.waitFor(/identity provider discovered/);
      // /readyz keeps a check's answer for 2 s (READY_CHECK_TTL_MS): ask until it is new.
      let ready = await fetch(`${url}/readyz`);
      for (let i = 0; i < 20 && ready.status !== 200; i++) {
        await new Promise((r) => setTimeout(r, 250));
        ready = await fetch(`${url}/readyz`);
      }
      expect(await ready.json()).toMatchObject({ checks: { identityProvider: 'ok' } });
    } finally {
      await provider.close();
    }
  });
});
