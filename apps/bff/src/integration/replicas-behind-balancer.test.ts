// Two BFF replicas behind Debian's haproxy, with their shared state and their audit trail in
// one PostgreSQL (DATABASE_URL alone), all real servers on free ports, exactly as
// docs/operations/replicas.md runs them (haproxy runs that page's own configuration). Each
// step below is something a person or an operator does; the replicas are separate node
// processes that share nothing else.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import http2 from 'node:http2';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { type CardService, createCardService } from '@card-console/card-service-sim';
import pg from 'pg';
import { Agent, fetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUser } from '../cli/add-user';
import { FRESH_MS, STALE_MS } from '../platform/sessions/outage-read-cache';
import { ROTATED_ID_GRACE_MS } from '../platform/sessions/session-service';
import { demoScrypt } from '../platform/users/password-hash';
import { migrateAsOwner, prepareAuditDatabase } from '../test/engines/audit-database';
import { type BffProcess, startBffProcess } from '../test/engines/bff-process';
import { freePort } from '../test/engines/free-port';
import { type Balancer, healthCheck, startHaproxy } from '../test/engines/haproxy';
import { type PostgresEngine, startPostgres } from '../test/engines/postgres';
import { totpCodeAt, totpStepAt } from '../test/totp-source';

const run = promisify(execFile);
const password = 'correct horse battery staple';
const people = {
  finance: 'finance@example.test',
  admin: 'admin@example.test',
  /**
   * Admins of their own for the steps that need codes of their own: the BFF takes each time
   * step of a person's codes once, so one admin for every step would wait for time to pass.
   */
  stepUpAdmin: 'step-up-admin@example.test',
  auditAdmin: 'audit-admin@example.test',
  /** Only the lock-out step signs in as this person, so the others stay usable. */
  target: 'target@example.test',
};

let postgres: PostgresEngine;
let sim: CardService;
let balancer: Balancer;
let replicas: [BffProcess, BffProcess];
let databaseUrl: string;
let ownerUrl: string;
let dataDir: string;
/** Each admin's TOTP secret, and the latest time step a code of theirs was used for. */
const adminTotpSecrets = new Map<string, string>();
const lastAdminSteps = new Map<string, number>();
let cardId: string;
let subAccountId: string;
/** A sub account created by a test below, with no transactions. */
let emptySubAccountId: string;
let replicaEnv: Record<string, string>;
const apiKey = randomBytes(24).toString('base64url');
/** The SPA the replicas serve: a page and its script, as a build leaves them. */
const spaScript = 'console.log("Card Console test build");\n';
const spaIndex =
  '<!doctype html><html lang="en"><head><title>Card Console</title>' +
  '<script type="module" src="/assets/app-test.js"></script></head>' +
  '<body><div id="root"></div></body></html>\n';
// Self-signed certificate: this client trusts it, as a browser told to would.
const tls = new Agent({ allowH2: true, connect: { rejectUnauthorized: false } });

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'cc-replicas-'));
  postgres = await startPostgres();
  const database = await prepareAuditDatabase(postgres, 'card_console');
  databaseUrl = database.appUrl;
  ownerUrl = database.ownerUrl;
  // The one-shot job before any replica (compose's `migrate`): the owner's login stops here.
  await migrateAsOwner(ownerUrl);

  // Enough rows in one sub account that an export outlasts the shutdown grace.
  sim = createCardService({ apiKey, subAccounts: 2, transactions: 300_000, rateLimit: false });
  const { url: simUrl } = await sim.listen(0, '127.0.0.1');

  // The replicas serve a build of their own, so this file needs no `pnpm build` first.
  const webDist = join(dataDir, 'web');
  await mkdir(join(webDist, 'assets'), { recursive: true });
  await writeFile(join(webDist, 'index.html'), spaIndex);
  await writeFile(join(webDist, 'assets', 'app-test.js'), spaScript);

  const usersFile = join(dataDir, 'users.json');
  for (const [email, role] of [
    [people.finance, 'finance'],
    [people.target, 'finance'],
  ] as const) {
    await addUser({ file: usersFile, email, role, password, scrypt: demoScrypt });
  }
  for (const email of [people.admin, people.stepUpAdmin, people.auditAdmin]) {
    const admin = await addUser({
      file: usersFile,
      email,
      role: 'admin',
      password,
      scrypt: demoScrypt,
    });
    adminTotpSecrets.set(email, new URL(admin.otpauthUri ?? '').searchParams.get('secret') ?? '');
  }

  const balancerPort = await freePort();
  const env = {
    CARD_API_BASE_URL: simUrl,
    CARD_API_KEY: apiKey,
    USERS_FILE: usersFile,
    SESSION_SECRET: randomBytes(32).toString('base64url'),
    TOTP_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    PUBLIC_ORIGIN: `https://localhost:${balancerPort}`,
    TRUST_PROXY: 'loopback',
    DATABASE_URL: databaseUrl,
    SHUTDOWN_GRACE_SECONDS: '1',
    API_RATE_LIMIT_PER_MINUTE: '100000',
    // A published limit the two divide between them (far above what these tests ask).
    CARD_API_RATE_PER_SECOND: '1000',
    METRICS_PORT: '0',
    LOG_LEVEL: 'info',
    WEB_DIST: webDist,
  };
  replicaEnv = { ...env, DATA_DIR: join(dataDir, 'replica') };
  const first = await startBffProcess({ ...env, DATA_DIR: join(dataDir, 'a') });
  const second = await startBffProcess({ ...env, DATA_DIR: join(dataDir, 'b') });
  replicas = [first, second];
  balancer = await startHaproxy([first.port, second.port], balancerPort, { accessLog: true });
  await waitFor(async () => (await call('GET', '/readyz')).status === 200, 'the balancer is ready');
  // The users file's people are brought in at start-up, before anyone signs in (an operator
  // disabling someone just after a deployment found "no such person" when it waited for a
  // first sign-in): one of the two replicas imports them.
  await waitFor(
    async () =>
      replicas.some((r) => r.logs.some((l) => l.msg === 'people imported from the users file')),
    'the people of the users file are imported',
    10_000,
  );

  const cookie = await signIn(people.finance);
  /** The first item of a list the set-up reads, or what the replica answered instead. */
  const firstOf = async (path: string) => {
    const res = await call('GET', path, { cookie });
    const body = (await res.json()) as { items?: { id: string }[] };
    if (res.status !== 200 || !body.items?.[0])
      throw new Error(`GET ${path} answered ${res.status}: ${JSON.stringify(body)}`);
    return body.items[0];
  };
  const firstCard = await firstOf('/api/cards');
  const firstAccount = await firstOf('/api/sub-accounts');
  cardId = firstCard.id;
  subAccountId = firstAccount.id;
}, 180_000);

afterAll(async () => {
  for (const replica of replicas ?? []) replica.kill('SIGKILL');
  await balancer?.stop();
  await sim?.close();
  await postgres?.destroy();
  await rm(dataDir, { recursive: true, force: true, maxRetries: 5 });
});

interface CallOptions {
  cookie?: string;
  body?: unknown;
  /** Send to this replica directly instead of through the balancer. */
  via?: BffProcess;
  /** Through the balancer with this client instead of the shared HTTP/2 one. */
  agent?: Agent;
}

async function call(method: string, path: string, options: CallOptions = {}) {
  const base = options.via ? options.via.url : balancer.origin;
  const headers: Record<string, string> = {
    'X-CSRF': '1',
    Origin: balancer.origin,
    Accept: 'application/json',
  };
  if (options.cookie) headers.Cookie = options.cookie;
  if (options.body !== undefined) headers['Content-Type'] = 'application/json';
  return fetch(`${base}${path}`, {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    dispatcher: options.via ? undefined : (options.agent ?? tls),
  });
}

function cookieOf(res: Awaited<ReturnType<typeof fetch>>): string {
  const line = res.headers.getSetCookie().find((c) => c.startsWith('__Host-cc_session='));
  if (!line) throw new Error(`no session cookie (status ${res.status})`);
  return line.split(';')[0] ?? '';
}

/**
 * A fresh code of an admin's: from a time step no earlier sign-in of theirs in this file used,
 * within the one step of drift either way the BFF allows and still valid there for 3 s (waits
 * if needed).
 */
async function adminCode(email: string = people.admin): Promise<string> {
  const secret = adminTotpSecrets.get(email) ?? '';
  for (;;) {
    const now = Date.now();
    const current = totpStepAt(now);
    const after = lastAdminSteps.get(email) ?? Number.NEGATIVE_INFINITY;
    for (let step = Math.max(after + 1, current - 1); step <= current + 1; step++) {
      if ((step + 2) * 30_000 - now > 3_000) {
        lastAdminSteps.set(email, step);
        return totpCodeAt(secret, step * 30_000);
      }
    }
    await sleep(500);
  }
}

async function signIn(email: string, via?: BffProcess): Promise<string> {
  const body: Record<string, string> = { email, password };
  if (adminTotpSecrets.has(email)) body.totp = await adminCode(email);
  const res = await call('POST', '/api/session', { body, via });
  expect(res.status, await res.clone().text()).toBe(200);
  return cookieOf(res);
}

/** Which replica wrote the request line of `requestId` (lines are written as responses end). */
async function servedBy(requestId: string | null): Promise<BffProcess> {
  let found: BffProcess | undefined;
  await waitFor(async () => {
    found = replicas.find((r) =>
      r.logs.some((line) => (line.req as { id?: string } | undefined)?.id === requestId),
    );
    return found !== undefined;
  }, `a replica logged request ${requestId}`);
  return found as BffProcess;
}

async function auditRecordsOf(requestIds: string[]) {
  // A connection per question: the database is stopped and started in between.
  const owner = new pg.Client({ connectionString: ownerUrl });
  await owner.connect();
  try {
    const { rows } = await owner.query(
      'SELECT request_id, action, outcome FROM audit_record WHERE request_id = ANY($1) ORDER BY id',
      [requestIds],
    );
    return rows as { request_id: string; action: string; outcome: string }[];
  } finally {
    await owner.end();
  }
}

async function verifyChain() {
  return run(process.execPath, ['--import', 'tsx', 'src/cli/audit-log.ts', 'verify'], {
    cwd: join(import.meta.dirname, '..', '..'),
    env: { PATH: process.env.PATH, DATABASE_URL: databaseUrl },
  }).then(
    ({ stdout }) => ({ code: 0, stdout }),
    (error: { code: number; stdout: string; stderr: string }) => ({
      code: error.code,
      stdout: `${error.stdout}${error.stderr}`,
    }),
  );
}

/**
 * Downloads an export over HTTP/2 through the balancer, as a browser does. `midway`, when
 * given, runs once 64 KiB have arrived; the reader then pauses 3 s (a slow connection).
 */
async function exportOverH2(
  session: http2.ClientHttp2Session,
  cookie: string,
  account: string,
  midway?: () => void,
): Promise<{ status: number; requestId: string; bytes: number }> {
  return new Promise((resolve, reject) => {
    const stream = session.request({
      ':method': 'GET',
      ':path': `/api/transactions/export.csv?subAccountId=${account}`,
      'x-csrf': '1',
      accept: 'text/csv',
      cookie,
    });
    let status = 0;
    let requestId = '';
    let bytes = 0;
    let paused = false;
    stream.on('response', (headers) => {
      status = Number(headers[':status']);
      requestId = String(headers['x-request-id'] ?? '');
    });
    stream.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      if (midway && !paused && bytes > 64 * 1024) {
        paused = true;
        midway();
        stream.pause();
        setTimeout(() => stream.resume(), 3_000);
      }
    });
    // Through haproxy 2.6 a cut may end as cleanly as a whole download: both settle here.
    stream.on('close', () => resolve({ status, requestId, bytes }));
    stream.on('error', () => {});
    session.on('error', reject);
  });
}

/** The body of a 503 from /readyz, or '' while the replica still says it is ready. */
async function notReady(via: BffProcess): Promise<string> {
  const res = await call('GET', '/readyz', { via });
  const text = await res.text();
  return res.status === 503 ? text : '';
}

const check = healthCheck();

/** How many of haproxy's health checks `replica` has answered so far (its request log lines). */
function checksAnswered(replica: BffProcess): number {
  return replica.logs.filter(
    (line) => (line.req as { path?: string } | undefined)?.path === check.path,
  ).length;
}

/** Waits until haproxy has checked both replicas more times than it takes to mark one down. */
async function balancerCheckedAgain(): Promise<void> {
  const before = replicas.map(checksAnswered);
  await waitFor(
    async () => replicas.every((r, i) => checksAnswered(r) > (before[i] ?? 0) + check.fall),
    `haproxy checked both replicas ${check.fall + 1} more times`,
  );
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitFor(check: () => Promise<boolean>, what: string, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await sleep(100);
  }
}

describe('two replicas behind haproxy, sharing PostgreSQL', { timeout: 120_000 }, () => {
  it('a person signed in through one replica reads and reveals through the other', async () => {
    const signIn1 = await call('POST', '/api/session', {
      body: { email: people.admin, password, totp: await adminCode() },
    });
    expect(signIn1.status).toBe(200);
    const cookie = cookieOf(signIn1);
    const home = await servedBy(signIn1.headers.get('x-request-id'));
    const other = replicas.find((r) => r !== home) as BffProcess;

    // Straight to the replica that did not sign the person in.
    const read = await call('GET', `/api/cards/${cardId}`, { cookie, via: other });
    expect(read.status).toBe(200);
    const reveal = await call('POST', `/api/cards/${cardId}/reveal`, {
      cookie,
      via: other,
      body: { reason: 'Checking a disputed charge' },
    });
    expect(reveal.status, await reveal.clone().text()).toBe(200);
    const revealId = reveal.headers.get('x-request-id') ?? '';
    expect(await auditRecordsOf([revealId])).toEqual([
      { request_id: revealId, action: 'card.reveal', outcome: 'started' },
      { request_id: revealId, action: 'card.reveal', outcome: 'success' },
    ]);

    // Through the balancer, reads land on both replicas with the one cookie.
    const served = new Set<BffProcess>();
    for (let i = 0; i < 6; i++) {
      const res = await call('GET', '/api/session', { cookie });
      expect(res.status).toBe(200);
      served.add(await servedBy(res.headers.get('x-request-id')));
    }
    expect(served.size).toBe(2);
  });

  it('signing out on one replica ends the session there at once and on the other within 5 s', async () => {
    const [a, b] = replicas;
    const cookie = await signIn(people.finance, a);
    expect((await call('GET', '/api/session', { cookie, via: b })).status).toBe(200);
    expect((await call('DELETE', '/api/session', { cookie, via: a })).status).toBe(204);
    const signedOut = Date.now();
    expect((await call('GET', '/api/session', { cookie, via: a })).status).toBe(401);
    // B read the session a moment ago and may use that read for less than FRESH_MS.
    await waitFor(
      async () => (await call('GET', '/api/session', { cookie, via: b })).status === 401,
      'B refuses the signed-out session',
    );
    // B read it before the sign-out, so it refuses it less than FRESH_MS after; the margin is
    // the polling's and one request's time.
    expect(Date.now() - signedOut).toBeLessThanOrEqual(FRESH_MS + 500);
    expect((await call('GET', '/api/session', { cookie, via: b })).status).toBe(401);
  });

  it('sign-in failures are counted across both replicas', async () => {
    const [a, b] = replicas;
    const wrong = { email: people.target, password: 'not the password' };
    // Five wrong passwords for one account from one address, spread over both replicas.
    const failures = await Promise.all(
      [a, b, a, b, a].map((via) => call('POST', '/api/session', { body: wrong, via })),
    );
    expect(failures.map((r) => r.status)).toEqual([401, 401, 401, 401, 401]);
    for (const via of [a, b]) {
      const right = await call('POST', '/api/session', {
        body: { email: people.target, password },
        via,
      });
      expect(right.status).toBe(429);
    }
  });

  it('each replica counts both on the roll of replicas alive: each walks at half the published limit', async () => {
    for (const replica of replicas) {
      const served = replica.logs.find((line) => line.msg === 'Prometheus metrics are served');
      // The first to start hears of the second at its next beat (every 5 s).
      await waitFor(async () => {
        const text = await (await fetch(String(served?.metrics))).text();
        return /^bff_walk_rate_replicas 2$/m.test(text);
      }, `replica on ${replica.port} counting two replicas`);
    }
  });

  it('audit records written by both replicas form one valid chain', async () => {
    const cookie = await signIn(people.admin);
    // Sub accounts created through the balancer, several at once: both replicas append at once.
    const writes = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        call('POST', '/api/sub-accounts', { cookie, body: { name: `Team ${i}` } }),
      ),
    );
    expect(writes.map((r) => r.status)).toEqual(Array(12).fill(201));
    const created = (await writes[0]?.json()) as { id: string } | undefined;
    if (!created) throw new Error('no sub account was created');
    emptySubAccountId = created.id;
    const ids = writes.map((r) => r.headers.get('x-request-id') ?? '');
    const writers = new Set(await Promise.all(ids.map(servedBy)));
    expect(writers.size).toBe(2);
    // Each create at the card service: recorded as started before it is asked, then its outcome.
    const records = await auditRecordsOf(ids);
    expect(records.filter((r) => r.outcome === 'started')).toHaveLength(12);
    expect(records.filter((r) => r.outcome === 'success')).toHaveLength(12);
    expect(records).toHaveLength(24);

    const verified = await verifyChain();
    expect(verified.stdout).toMatch(/intact/i);
    expect(verified.code).toBe(0);
  });

  // Two admin codes (sign-in, step-up) and a replica brought back: up to about 80 s.
  it('a failing card service or replica: a reveal keeps the session it rotated, a PATCH is never sent twice', {
    timeout: 180_000,
  }, async () => {
    const cookie = await signIn(people.stepUpAdmin);
    const totp = await adminCode(people.stepUpAdmin);
    // The card service answers 502 to the PAN read, to the BFF's first try and both retries.
    const panRead = { kind: 'status', status: 502, method: 'GET', route: 'GET /card/:id' } as const;
    sim.faults.enqueue(panRead, panRead, panRead);
    let rotated: string;
    let rotatedAt: number;
    try {
      // The code in the body is a step-up: it passes, and the session id rotates.
      const reveal = await call('POST', `/api/cards/${cardId}/reveal`, {
        cookie,
        body: { reason: 'Card holder on the phone', totp },
      });
      const text = await reveal.clone().text();
      expect(reveal.status, text).toBeGreaterThanOrEqual(502);
      const failure = (await reveal.json()) as { code: string; requestId: string };
      expect(failure.code, text).toMatch(/^upstream_/);
      expect(text).not.toMatch(/"pan"/);
      // The replica's own answer, with the rotated cookie it set, reached the person.
      rotated = cookieOf(reveal);
      rotatedAt = Date.now();
      await servedBy(reveal.headers.get('x-request-id'));
      expect(rotated).not.toBe(cookie);
      expect(await auditRecordsOf([failure.requestId])).toEqual(
        expect.arrayContaining([
          { request_id: failure.requestId, action: 'session.stepUp', outcome: 'success' },
          { request_id: failure.requestId, action: 'card.reveal', outcome: 'failed' },
        ]),
      );
    } finally {
      sim.faults.clear();
    }
    // Still signed in, through either replica. The id before the step-up still answers reads
    // already on their way, on both (the store's record of it, marked), for ROTATED_ID_GRACE_MS;
    // after this test's other steps it is refused (below).
    for (const via of replicas) {
      expect((await call('GET', '/api/session', { cookie: rotated, via })).status).toBe(200);
      expect((await call('GET', '/api/session', { cookie, via })).status).toBe(200);
    }

    // A change the card service fails to make is answered once, not made by the other replica.
    const read = await call('GET', `/api/cards/${cardId}`, { cookie: rotated });
    const before = (await read.json()) as { name: string };
    const patchesBefore = sim.stats.count('PATCH /card/:id');
    sim.faults.enqueue({ kind: 'status', status: 502, method: 'PATCH', route: 'PATCH /card/:id' });
    try {
      const patch = await call('PATCH', `/api/cards/${cardId}`, {
        cookie: rotated,
        body: {
          name: `Renamed ${randomBytes(3).toString('hex')}`,
          expected: { name: before.name },
        },
      });
      const text = await patch.clone().text();
      expect(patch.status, text).toBe(502);
      expect(((await patch.json()) as { code: string }).code).toBe('upstream_error');
      expect(sim.stats.count('PATCH /card/:id')).toBe(patchesBefore + 1);
      // haproxy logged it as answered by the server (its 502, no retry: `----`).
      const line = () => balancer.log.find((l) => /"PATCH \S*\/api\/cards\/\S+ HTTP/.test(l));
      await waitFor(async () => line() !== undefined, 'haproxy logged the PATCH');
      expect(line()).toMatch(/ 502 .* ---- /);
    } finally {
      sim.faults.clear();
    }
    const after = await call('GET', `/api/cards/${cardId}`, { cookie: rotated });
    expect(((await after.json()) as { name: string }).name).toBe(before.name);

    // Two changes to two other cards, one on each replica (round robin), both held by the card
    // service; one replica dies meanwhile. Its change may have been made: it is not resent.
    // Each over a new HTTP/1.1 connection, where haproxy answers a request it does not resend
    // with its own 502 (over HTTP/2 it resets the stream instead: docs/operations/replicas.md).
    const list = await call('GET', '/api/cards', { cookie: rotated });
    const others = ((await list.json()) as { items: { id: string; name: string }[] }).items
      .filter((c) => c.id !== cardId)
      .slice(0, 2);
    const patches = sim.stats.count('PATCH /card/:id');
    const hold = { kind: 'delay', ms: 4_000, method: 'PATCH', route: 'PATCH /card/:id' } as const;
    sim.faults.enqueue(hold, hold);
    const http1 = others.map(() => new Agent({ connect: { rejectUnauthorized: false } }));
    try {
      const changes = others.map((card, i) =>
        call('PATCH', `/api/cards/${card.id}`, {
          cookie: rotated,
          agent: http1[i],
          body: { name: `${card.name} (moved)`, expected: { name: card.name } },
        }),
      );
      await waitFor(
        async () => sim.stats.count('PATCH /card/:id') === patches + 2,
        'both changes reached the card service',
      );
      const [victim] = replicas;
      victim.kill('SIGKILL');
      expect(await victim.exited).toBe('SIGKILL');
      const statuses = (await Promise.all(changes)).map((r) => r.status).sort();
      expect(statuses).toEqual([200, 502]);
      expect(sim.stats.count('PATCH /card/:id')).toBe(patches + 2);
      // haproxy's line for it: the server hung up before answering (SH), and no retry (/0).
      const cut = balancer.log.find((l) => / 502 .* SH-- \S+\/0 .*"PATCH /.test(l));
      expect(cut, balancer.log.slice(-5).join('\n')).toBeDefined();
    } finally {
      sim.faults.clear();
      await Promise.all(http1.map((agent) => agent.close()));
    }
    // The replica comes back where the balancer expects it.
    const back = await startBffProcess(replicaEnv, { port: replicas[0].port });
    replicas[0] = back;
    await waitFor(async () => {
      const res = await call('GET', '/healthz');
      await sleep(50);
      return back.logs.some(
        (line) => (line.req as { id?: string } | undefined)?.id === res.headers.get('x-request-id'),
      );
    }, 'the balancer sends to the replica brought back');

    // The id before the step-up has ended on every replica once its grace is over (when, to the
    // millisecond, is session-service.test.ts's, on a manual clock).
    await sleep(Math.max(0, rotatedAt + ROTATED_ID_GRACE_MS - Date.now()));
    for (const via of replicas) {
      await waitFor(
        async () => (await call('GET', '/api/session', { cookie, via })).status === 401,
        'the id before the step-up is refused',
      );
    }
  });

  it('port 80 only redirects to https', async () => {
    const res = await fetch(`${balancer.plainOrigin}/cards?status=ACTIVE`, { redirect: 'manual' });
    expect(res.status).toBe(301);
    expect(res.headers.get('location')).toMatch(/^https:\/\/[^/]+\/cards\?status=ACTIVE$/);
  });

  it('PostgreSQL stopped: both replicas stay in the balancer, the SPA loads, a session read in the last seconds still reads cards, a sign-in answers 503 store_unavailable, /readyz names PostgreSQL, then recovery without a restart, the session kept', async () => {
    const [a, b] = replicas;
    const cookie = await signIn(people.finance, a);
    // Each replica reads the session and the person's standing from PostgreSQL: the last good reads.
    for (const via of [a, b]) {
      expect((await call('GET', '/api/cards', { cookie, via })).status).toBe(200);
    }
    const lastGoodRead = Date.now();
    await postgres.stop();
    try {
      // Reads of the card service keep answering, on each replica and through the balancer.
      for (const via of [a, b, undefined]) {
        const read = await call('GET', '/api/cards', { cookie, via });
        expect(read.status, await read.clone().text()).toBe(200);
        expect(((await read.json()) as { items: unknown[] }).items.length).toBeGreaterThan(0);
      }
      // What is stored says the database is away through the balancer too, in the API's error
      // body, and starts no session.
      const signInNow = await call('POST', '/api/session', {
        body: { email: people.finance, password },
      });
      expect(signInNow.status).toBe(503);
      expect(signInNow.headers.get('retry-after')).toBe('5');
      expect(signInNow.headers.getSetCookie()).toEqual([]);
      expect(await signInNow.json()).toMatchObject({
        status: 503,
        code: 'store_unavailable',
        detail: expect.any(String),
        requestId: signInNow.headers.get('x-request-id'),
      });
      // Reads stand on the last good ones for 30 s (STALE_MS) at most: still within them here.
      expect(Date.now() - lastGoodRead).toBeLessThan(STALE_MS);

      for (const via of [a, b]) {
        // A readiness answer is reused for a moment (probes must not hammer the engines).
        await waitFor(
          async () => /postgres/i.test(await notReady(via)),
          'readiness names PostgreSQL',
        );
      }
      // More checks than it takes haproxy to take out a replica whose check fails.
      await balancerCheckedAgain();

      // The SPA loads through the balancer: its page and its script, from a replica.
      const page = await fetch(`${balancer.origin}/sign-in`, {
        headers: { Accept: 'text/html' },
        dispatcher: tls,
      });
      expect(page.status).toBe(200);
      expect(await page.text()).toBe(spaIndex);
      expect(await servedBy(page.headers.get('x-request-id'))).toBeDefined();
      const script = await fetch(`${balancer.origin}/assets/app-test.js`, { dispatcher: tls });
      expect(script.status).toBe(200);
      expect(await script.text()).toBe(spaScript);

      // And /readyz, for operators and alerts, names PostgreSQL.
      const ready = await call('GET', '/readyz');
      expect(ready.status).toBe(503);
      expect(await ready.json()).toMatchObject({
        code: 'not_ready',
        detail: expect.stringMatching(/PostgreSQL/),
      });
    } finally {
      await postgres.start();
    }
    // Both replicas are ready again by themselves; the session was kept with the database.
    await waitFor(
      async () => (await call('GET', '/readyz', { via: a })).status === 200,
      'replica A is ready',
    );
    await waitFor(
      async () => (await call('GET', '/readyz', { via: b })).status === 200,
      'replica B is ready',
    );
    for (const via of [a, b]) {
      expect((await call('GET', '/api/cards', { cookie, via })).status).toBe(200);
    }
  });

  it('PostgreSQL stopped: no reveal is ever returned without its audit record', async () => {
    const [a, b] = replicas;
    const cookie = await signIn(people.auditAdmin);
    // Both replicas have read the session: during the outage the reveal, not the session, is
    // what the database's absence stops.
    for (const via of [a, b]) {
      expect((await call('GET', '/api/session', { cookie, via })).status).toBe(200);
    }
    const reveal = (via?: BffProcess) =>
      call('POST', `/api/cards/${cardId}/reveal`, {
        cookie,
        via,
        body: { reason: 'Card holder on the phone' },
      });
    // Reveals in flight while the database goes away.
    const racing = [reveal(a), reveal(b)];
    await postgres.stop();
    const answered = await Promise.all(racing);
    try {
      const refused = await reveal(a);
      expect(refused.status).toBe(503);
      const body = await refused.text();
      expect(body).toMatch(/audit_unavailable/);
      expect(body).not.toMatch(/"pan"/);
      await waitFor(async () => /postgres/i.test(await notReady(b)), 'readiness names PostgreSQL');
    } finally {
      await postgres.start();
    }
    await waitFor(
      async () => (await call('GET', '/readyz', { via: a })).status === 200,
      'replica A is ready',
    );
    const after = await reveal(b);
    expect(after.status).toBe(200);
    answered.push(after);

    const shown = answered.filter((r) => r.status === 200);
    for (const res of answered) {
      const text = await res.text();
      if (res.status !== 200) expect(text).not.toMatch(/"pan"/);
    }
    const ids = shown.map((r) => r.headers.get('x-request-id') ?? '');
    const records = await auditRecordsOf(ids);
    // Each shown reveal: its start, then its success.
    for (const outcome of ['started', 'success']) {
      const these = records.filter((r) => r.outcome === outcome);
      expect(these.map((r) => r.request_id).sort()).toEqual([...ids].sort());
    }
    expect(records).toHaveLength(ids.length * 2);
    expect(records.every((r) => r.action === 'card.reveal')).toBe(true);
    expect((await verifyChain()).code).toBe(0);
  });

  it('one replica killed mid-run: the other carries on, with the same sessions', async () => {
    const cookie = await signIn(people.finance);
    const [victim, survivor] = replicas;
    const statuses: number[] = [];
    let sent = 0;
    const worker = async () => {
      while (sent < 60) {
        sent++;
        const res = await call('GET', `/api/transactions?subAccountId=${subAccountId}`, {
          cookie,
        });
        statuses.push(res.status);
        await res.arrayBuffer();
        if (statuses.length === 15) victim.kill('SIGKILL');
      }
    };
    await Promise.all(Array.from({ length: 6 }, worker));
    expect(await victim.exited).toBe('SIGKILL');
    expect(statuses).toEqual(Array(60).fill(200));
    const after = await call('GET', '/api/session', { cookie });
    expect(after.status).toBe(200);
    expect(await servedBy(after.headers.get('x-request-id'))).toBe(survivor);
  });

  it('SIGTERM during an export: the cut download never passes as complete', async () => {
    const cookie = await signIn(people.finance);
    const [dead, survivor] = replicas;
    const session = http2.connect(balancer.origin, { rejectUnauthorized: false });
    try {
      // A finished export, over HTTP/2 through the balancer, has its receipt: the bytes match.
      const empty = await exportOverH2(session, cookie, emptySubAccountId);
      expect(empty.status).toBe(200);
      const fullReceipt = await call(
        'GET',
        `/api/transactions/export-receipts/${empty.requestId}`,
        {
          cookie,
        },
      );
      expect(fullReceipt.status).toBe(200);
      expect(await fullReceipt.json()).toEqual({ rows: 0, bytes: empty.bytes });

      // A long one, cut by the replica's shutdown while the reader is slow.
      const cut = await exportOverH2(session, cookie, subAccountId, () => survivor.kill('SIGTERM'));
      expect(cut.status).toBe(200);
      expect(cut.bytes).toBeGreaterThan(64 * 1024);
      expect(await survivor.exited).toBe(0);
      const logged = survivor.logs.find(
        (line) => line.requestId === cut.requestId && /csv export cut/.test(String(line.msg)),
      );
      expect(logged?.rows).toEqual(expect.any(Number));

      // haproxy itself saw the server break the response off (termination state SD). Its log
      // keeps the path only (no query string): the cut export is the last export it logged.
      const exportLines = () =>
        balancer.log.filter((line) => line.includes(' /api/transactions/export.csv HTTP/'));
      await waitFor(async () => exportLines().length >= 2, 'haproxy logged the export');
      expect(exportLines().at(-1)).toMatch(/ SD-- /);
      expect(balancer.log.join('\n')).not.toContain('subAccountId=');

      // Whatever the stream's end looked like through the proxy, the SPA asks for the
      // receipt, from whichever replica answers now: there is none, so nothing is saved.
      const back = await startBffProcess(replicaEnv, { port: dead.port });
      replicas[0] = back;
      await waitFor(
        async () => (await call('GET', '/readyz')).status === 200,
        'the balancer sends to the replica brought back',
      );
      const missing = await call('GET', `/api/transactions/export-receipts/${cut.requestId}`, {
        cookie,
      });
      expect(missing.status).toBe(404);
      expect(await missing.json()).toMatchObject({ code: 'export_incomplete' });
    } finally {
      session.destroy();
    }
  });
});
