// `pnpm users … --server-stopped` and a server on the embedded engine, as real processes on one
// DATA_DIR: whichever comes second refuses, saying why, and neither opens the engine beside the
// other. A change made once the server is stopped is in DATA_DIR's trail, by the operator.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, utimes } from 'node:fs/promises';
import { hostname, tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BffProcess, startBffProcess } from '../test/engines/bff-process';
import { addUser } from './add-user';

const password = 'correct horse battery staple';
const origin = 'http://localhost:8080';
let dir: string;
let dataDir: string;
let env: Record<string, string>;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cc-users-lock-'));
  dataDir = join(dir, 'data');
  const usersFile = join(dir, 'users.json');
  for (const email of ['lee@example.test', 'kim@example.test']) {
    await addUser({ file: usersFile, email, role: 'finance', password });
  }
  env = {
    CARD_API_BASE_URL: 'http://127.0.0.1:9',
    CARD_API_KEY: randomBytes(24).toString('base64url'),
    USERS_FILE: usersFile,
    SESSION_SECRET: randomBytes(32).toString('base64url'),
    TOTP_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    PUBLIC_ORIGIN: origin,
    DATA_DIR: dataDir,
    WEB_DIST: join(dir, 'no-web'),
    LOG_LEVEL: 'warn',
  };
}, 60_000);

afterAll(() => rm(dir, { recursive: true, force: true, maxRetries: 5 }));

function users(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', join(import.meta.dirname, 'users.ts'), ...args],
      {
        cwd: join(import.meta.dirname, '..', '..'),
        env: { PATH: process.env.PATH ?? '', ...env },
        timeout: 60_000,
      },
      (error, stdout, stderr) =>
        resolve({ code: error ? ((error as { code?: number }).code ?? null) : 0, stdout, stderr }),
    );
  });
}

/** Signs in once, which opens the people store (and imports the users file) on the server. */
async function signIn(server: BffProcess, email: string): Promise<number> {
  const res = await fetch(`${server.url}/api/session`, {
    method: 'POST',
    headers: { 'X-CSRF': '1', Origin: origin, 'Content-Type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
  return res.status;
}

describe('pnpm users --server-stopped and the server, one DATA_DIR', () => {
  /** The lock both take, beside the engine's folder (platform/locks/data-dir-lock.ts). */
  const lockPath = () => join(dataDir, 'transaction-index.lock');

  it('refuses the command while the server runs on the embedded engine', async () => {
    const server = await startBffProcess(env);
    try {
      expect(await signIn(server, 'lee@example.test')).toBe(200);
      const refused = await users(['disable', 'lee@example.test', '--server-stopped']);
      expect(refused.stderr).toContain(
        `Card Console (or another \`pnpm users\`) is using ${dataDir}: the embedded engine takes one process at a time. Stop Card Console, then run this again with --server-stopped`,
      );
      expect(refused.code).toBe(1);
      // The person was not changed: they still sign in.
      expect(await signIn(server, 'lee@example.test')).toBe(200);
    } finally {
      server.kill('SIGTERM');
      expect(await server.exited).toBe(0);
    }
  }, 120_000);

  it('a server started while the command holds the lock waits, saying so, and starts once it is free', async () => {
    // The lock the command takes, taken here the same way (the command holds it only seconds).
    const { lockEmbeddedStore } = await import('../platform/locks/data-dir-lock');
    const release = await lockEmbeddedStore(dataDir, {
      busy: 'held by the test',
      onLost: () => {},
    });
    const waitingLine = (line: Record<string, unknown>) =>
      String(line.msg ?? '').includes(`DATA_DIR (${dataDir}) is locked by another process`);
    // Released once the server says it waits (however long a loaded machine takes it to get
    // there: a fixed 3 s let one start after the release, with nothing to wait for).
    let saysItWaits = () => {};
    const waiting = new Promise<void>((resolve) => {
      saysItWaits = resolve;
    });
    const starting = startBffProcess(env, {
      onLine: (line) => {
        if (waitingLine(line)) saysItWaits();
      },
    });
    const stillWaiting = await Promise.race([waiting.then(() => true), starting.then(() => false)]);
    expect(stillWaiting, 'the server started while the lock was held').toBe(true);
    await release();
    const server = await starting;
    try {
      const waited = server.logs.find(waitingLine);
      expect(waited).toMatchObject({ level: 40 });
      expect(await signIn(server, 'lee@example.test')).toBe(200);
    } finally {
      server.kill('SIGTERM');
      await server.exited;
    }
  }, 120_000);

  it('keeps refusing after the server was killed, until its lock goes stale, then takes it over', async () => {
    const server = await startBffProcess(env);
    expect(await signIn(server, 'kim@example.test')).toBe(200);
    // Killed: its lock stays behind, untouched from now on.
    server.kill('SIGKILL');
    await server.exited;
    const stuck = await users(['list', '--server-stopped']);
    expect(stuck.stderr).toContain('is using');
    expect(stuck.code).toBe(1);
    const longAgo = new Date(Date.now() - 60_000);
    await utimes(lockPath(), longAgo, longAgo);
    const listed = await users(['list', '--server-stopped']);
    expect(listed.stdout).toContain('kim@example.test\tfinance\tactive');
    expect(listed.code).toBe(0);
  }, 120_000);

  it("records a change in DATA_DIR's trail, by the operator's account and host", async () => {
    const done = await users(['disable', 'kim@example.test', '--server-stopped']);
    expect(done.stdout).toContain('kim@example.test is disabled');
    expect(done.code).toBe(0);
    const trail = (await readFile(join(dataDir, 'audit.jsonl'), 'utf8')).trimEnd().split('\n');
    const last = JSON.parse(trail.at(-1) ?? '{}') as Record<string, unknown>;
    expect(last).toMatchObject({
      actor: `os:${userInfo().username}@${hostname()}`.toLowerCase(),
      action: 'person.disable',
      target: 'kim@example.test',
      outcome: 'success',
      detail: 'disabled',
    });
    expect(last.role).toBeUndefined();
    // The server starts again once the command is done, and kim is disabled there.
    const again = await startBffProcess(env);
    try {
      expect(await signIn(again, 'kim@example.test')).toBe(401);
    } finally {
      again.kill('SIGTERM');
      await again.exited;
    }
  }, 120_000);
});
