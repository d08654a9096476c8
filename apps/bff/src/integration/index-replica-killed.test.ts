// The transaction index on two BFF processes sharing one PostgreSQL (and nothing else): the
// replica syncing a sub account is killed (SIGKILL) mid-sync; the other, asked next, takes the
// sync over once the dead one's lease on the job lapses (no heartbeat renews it), keeps what the
// dead one read (its finished days and its open ranges' pages) and finishes the rest, and the
// index then holds exactly the card service's rows.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CardService, createCardService } from '@card-console/card-service-sim';
import {
  indexPageSchema,
  indexTotalsAnswerSchema,
} from '@card-console/shared/api/transaction-index';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUser } from '../cli/add-user';
import { INDEX_HISTORY_DAYS, utcDay } from '../features/transaction-index/index-sync';
import { demoScrypt } from '../platform/users/password-hash';
import { migrateAsOwner, prepareAuditDatabase } from '../test/engines/audit-database';
import { type BffProcess, startBffProcess } from '../test/engines/bff-process';
import { type PostgresEngine, startPostgres } from '../test/engines/postgres';

const password = 'correct horse battery staple';
const email = 'finance@example.test';
const apiKey = randomBytes(24).toString('base64url');
const origin = 'http://localhost:8080';

let dataDir: string;
let postgres: PostgresEngine;
let sim: CardService;
let replicas: BffProcess[] = [];

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'cc-index-replicas-'));
  postgres = await startPostgres();
  const database = await prepareAuditDatabase(postgres, 'card_console');
  await migrateAsOwner(database.ownerUrl);
  sim = createCardService({ apiKey, subAccounts: 1, transactions: 12_000, rateLimit: false });
  const { url: simUrl } = await sim.listen(0, '127.0.0.1');
  const usersFile = join(dataDir, 'users.json');
  await addUser({ file: usersFile, email, role: 'finance', password, scrypt: demoScrypt });
  const env = {
    CARD_API_BASE_URL: simUrl,
    CARD_API_KEY: apiKey,
    USERS_FILE: usersFile,
    SESSION_SECRET: randomBytes(32).toString('base64url'),
    TOTP_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    PUBLIC_ORIGIN: origin,
    DATABASE_URL: database.appUrl,
    API_RATE_LIMIT_PER_MINUTE: '100000',
    LOG_LEVEL: 'info',
    WEB_DIST: join(dataDir, 'no-web'),
  };
  replicas = await Promise.all(
    ['a', 'b'].map((name) => startBffProcess({ ...env, DATA_DIR: join(dataDir, name) })),
  );
}, 180_000);

afterAll(async () => {
  for (const replica of replicas) replica.kill('SIGKILL');
  await sim?.close();
  await postgres?.destroy();
  await rm(dataDir, { recursive: true, force: true, maxRetries: 5 });
});

const headers = (cookie?: string) => ({
  'X-CSRF': '1',
  Origin: origin,
  Accept: 'application/json',
  ...(cookie ? { Cookie: cookie } : {}),
});

async function signIn(via: BffProcess): Promise<string> {
  const res = await fetch(`${via.url}/api/session`, {
    method: 'POST',
    headers: { ...headers(), 'Content-Type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
  expect(res.status).toBe(200);
  const line = res.headers.getSetCookie().find((c) => /^(__Host-)?cc_session=/.test(c));
  return (line ?? '').split(';')[0] as string;
}

async function ask(via: BffProcess, cookie: string) {
  const res = await fetch(`${via.url}/api/index/transactions?limit=1`, {
    headers: headers(cookie),
  });
  expect(res.status, await res.clone().text()).toBe(200);
  return indexPageSchema.parse(await res.json());
}

/** The figures of every row the index holds. */
async function askTotals(via: BffProcess, cookie: string) {
  const res = await fetch(`${via.url}/api/index/transactions/totals`, { headers: headers(cookie) });
  expect(res.status, await res.clone().text()).toBe(200);
  return indexTotalsAnswerSchema.parse(await res.json());
}

describe('the transaction index when the replica syncing is killed', () => {
  it('the other replica finishes the sync, and the index holds exactly the service rows', async () => {
    const [a, b] = replicas as [BffProcess, BffProcess];
    const cookie = await signIn(a);
    // Slow pages, so the sync is still running when its replica dies: killed once it has asked
    // for half the pages the sub account's history takes (the walk's pace has up to 32 pages in
    // flight, so a page's time alone does not slow it much). Not on a count of days done: a
    // paced walk sizes its ranges to end together and writes days a range at a time, so that
    // count can go from a few days to all of them at once (a clean clone's run saw it).
    const sub = sim.data.subAccounts()[0]?.id as string;
    const from = Date.parse(
      `${utcDay(Date.now() - (INDEX_HISTORY_DAYS - 1) * 86_400_000)}T00:00:00Z`,
    );
    const rows = sim.data.transactions(sub).filter((t) => Date.parse(t.date) >= from);
    const fullWalk = Math.ceil(rows.length / 50);
    sim.faults.set({ latencyMs: 150 });
    const first = await ask(a, cookie);
    expect(first.freshness.syncing).toBe(true);
    let progress = first.freshness;
    const halfWay = () => sim.stats.count('GET /transaction') >= fullWalk / 2;
    for (let tries = 0; progress.syncing && !halfWay() && tries < 400; tries++) {
      await new Promise((r) => setTimeout(r, 50));
      progress = (await ask(a, cookie)).freshness;
    }
    expect(halfWay()).toBe(true);
    expect(progress.syncing).toBe(true);
    a.kill('SIGKILL');
    await a.exited;
    const pagesBefore = sim.stats.count('GET /transaction');
    sim.faults.clear();

    // The same person (sessions are in PostgreSQL) asks the other replica: it joins the dead
    // one's job, takes it once its lease lapses, and walks only the days not yet walked.
    let answer = await ask(b, cookie);
    const deadline = Date.now() + 60_000;
    while (answer.freshness.syncing && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200));
      answer = await ask(b, cookie);
    }
    expect(answer.freshness.syncing).toBe(false);

    // Every row, and the posted ones (settled, refund, dispute: docs/money.md) with their sum.
    const posted = rows.filter((t) => ['settled', 'refund', 'dispute'].includes(t.status));
    const totals = await askTotals(b, cookie);
    expect(totals.freshness.syncing).toBe(false);
    expect(totals.summary).toMatchObject({
      count: rows.length,
      posted: { count: posted.length, cents: posted.reduce((n, t) => n + t.amountCents, 0) },
    });
    // What the dead replica read was kept (days finished, and the pages of ranges it had open):
    // the second walk read fewer pages than the whole history takes.
    const pagesAfter = sim.stats.count('GET /transaction') - pagesBefore;
    expect(pagesAfter).toBeGreaterThan(0);
    expect(pagesAfter).toBeLessThan(fullWalk);
  }, 120_000);
});
