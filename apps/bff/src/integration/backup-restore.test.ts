// docs/operations/backup.md, run as written: a running deployment (PostgreSQL set up by the
// audit trail's SQL and `pnpm migrate`, a BFF process, the simulator) is backed up by the
// page's shell block while it serves, restored by its blocks into a second, fresh PostgreSQL,
// and a new BFF process on the restored database serves the same list, note and receipt, with
// the audit chain verified up to the head kept at the dump.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type CardService, createCardService } from '@card-console/card-service-sim';
import {
  indexPageSchema,
  indexTotalsAnswerSchema,
} from '@card-console/shared/api/transaction-index';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUser } from '../cli/add-user';
import { demoScrypt } from '../platform/users/password-hash';
import { migrateAsOwner } from '../test/engines/audit-database';
import { type BffProcess, startBffProcess } from '../test/engines/bff-process';
import { binDir, type PostgresEngine, startPostgres } from '../test/engines/postgres';
import { pdfReceipt } from '../test/receipt-files';

const repoDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..');
const read = (path: string) => readFile(join(repoDir, path), 'utf8');

/** The ```sh blocks of one `##` section of a page, in order, list indentation removed. */
async function shellBlocks(page: string, section: string): Promise<string[]> {
  const text = await read(page);
  const start = text.indexOf(`\n## ${section}\n`);
  if (start < 0) throw new Error(`${page} has no section "${section}"`);
  const end = text.indexOf('\n## ', start + 1);
  const body = text.slice(start, end < 0 ? undefined : end);
  return [...body.matchAll(/^( *)```sh\n([\s\S]*?)^\1```$/gm)].map(([, indent = '', code = '']) =>
    code.replace(new RegExp(`^${indent}`, 'gm'), ''),
  );
}

/** The SQL block of the audit trail's set-up, with a password for each `'…'`. */
async function roleSetUpSql(password: string): Promise<string> {
  const text = await read('docs/operations/audit-trail.md');
  const sql = /```sql\n([\s\S]*?)```/.exec(text)?.[1];
  if (!sql?.includes('CREATE DATABASE card_console')) throw new Error('no set-up SQL found');
  return sql.replaceAll("'…'", `'${password}'`);
}

interface Shell {
  code: number;
  stdout: string;
  stderr: string;
}

let tools: string;

/** Runs `script` as an operator's shell would (`sh -eu`, from the checkout). */
function sh(script: string, vars: Record<string, string>): Promise<Shell> {
  // An operator's shell reaches the npm registry as this machine does (its proxy and CA): without
  // them `npx` under another Node waits out its network timeouts (72 s a call on Node 24).
  const network = Object.fromEntries(
    Object.entries(process.env).filter(
      ([name, value]) =>
        value !== undefined && /^(NODE_EXTRA_CA_CERTS|(https?|no)_proxy)$/i.test(name),
    ),
  );
  const env = {
    PATH: `${tools}:${binDir()}:${process.env.PATH ?? ''}`,
    HOME: process.env.HOME ?? '',
    ...network,
  };
  return new Promise((resolve) =>
    execFile(
      'sh',
      ['-eu', '-c', script],
      { cwd: repoDir, env: { ...env, ...vars }, timeout: 180_000 },
      (error, stdout, stderr) =>
        resolve({
          code: error ? Number((error as { code?: number }).code ?? 1) : 0,
          stdout,
          stderr,
        }),
    ),
  );
}

async function shOk(script: string, vars: Record<string, string>): Promise<Shell> {
  const run = await sh(script, vars);
  expect(run.code, `${script}\n${run.stdout}\n${run.stderr}`).toBe(0);
  return run;
}

const password = 'correct horse battery staple';
const email = 'finance@example.test';
const dbPassword = randomBytes(18).toString('base64url');
const apiKey = randomBytes(24).toString('base64url');
const origin = 'http://localhost:8080';

/** One PostgreSQL server's URLs as the docs name them. */
function urls(engine: PostgresEngine) {
  return {
    SUPERUSER_URL: engine.adminUrl,
    DATABASE_MIGRATION_URL: engine.urlFor('card_console', 'card_console_owner', dbPassword),
    DATABASE_URL: engine.urlFor('card_console', 'card_console', dbPassword),
  };
}

let dir: string;
let sim: CardService;
const servers: PostgresEngine[] = [];
const bffs: BffProcess[] = [];
let env: Record<string, string>;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cc-backup-'));
  // `pnpm` as the docs mean it: pnpm itself, through npx as the README runs it.
  tools = join(dir, 'bin');
  await mkdir(tools);
  await writeFile(join(tools, 'pnpm'), '#!/bin/sh\nexec npx -y pnpm@10.34.9 "$@"\n');
  await chmod(join(tools, 'pnpm'), 0o755);
  sim = createCardService({ apiKey, subAccounts: 1, transactions: 400, rateLimit: false });
  const { url: simUrl } = await sim.listen(0, '127.0.0.1');
  env = {
    CARD_API_BASE_URL: simUrl,
    CARD_API_KEY: apiKey,
    SESSION_SECRET: randomBytes(32).toString('base64url'),
    TOTP_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    PUBLIC_ORIGIN: origin,
    API_RATE_LIMIT_PER_MINUTE: '100000',
    LOG_LEVEL: 'info',
    WEB_DIST: join(dir, 'no-web'),
  };
}, 60_000);

afterAll(async () => {
  for (const bff of bffs) bff.kill('SIGKILL');
  await Promise.all(bffs.map((bff) => bff.exited));
  await sim?.close();
  for (const server of servers) await server.destroy();
  await rm(dir, { recursive: true, force: true, maxRetries: 5 });
});

const headers = (cookie?: string) => ({
  'X-CSRF': '1',
  Origin: origin,
  Accept: 'application/json',
  ...(cookie ? { Cookie: cookie } : {}),
});

async function signIn(bff: BffProcess): Promise<string> {
  const res = await fetch(`${bff.url}/api/session`, {
    method: 'POST',
    headers: { ...headers(), 'Content-Type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
  expect(res.status, await res.clone().text()).toBe(200);
  const line = res.headers.getSetCookie().find((c) => /^(__Host-)?cc_session=/.test(c));
  return (line ?? '').split(';')[0] as string;
}

async function get(bff: BffProcess, cookie: string, path: string): Promise<Response> {
  const res = await fetch(`${bff.url}${path}`, { headers: headers(cookie) });
  expect(res.status, `${path}: ${await res.clone().text()}`).toBe(200);
  return res;
}

const list = async (bff: BffProcess, cookie: string) =>
  indexPageSchema.parse(await (await get(bff, cookie, '/api/index/transactions?limit=100')).json());
/** The figures of the list's set (every row: the list has no filter). */
const totals = async (bff: BffProcess, cookie: string) =>
  indexTotalsAnswerSchema.parse(
    await (await get(bff, cookie, '/api/index/transactions/totals')).json(),
  );

/** What a person sees of the transaction: the list, its totals, its note, receipts and bytes. */
async function seen(bff: BffProcess, cookie: string, id: string) {
  const { items, nextCursor } = await list(bff, cookie);
  const { summary } = await totals(bff, cookie);
  const path = `/api/transactions/${encodeURIComponent(id)}`;
  const receipts = (await (await get(bff, cookie, `${path}/receipts`)).json()) as {
    items: { id: string }[];
  };
  const bytes = await Promise.all(
    receipts.items.map(async (r) =>
      Buffer.from(await (await get(bff, cookie, `${path}/receipts/${r.id}`)).arrayBuffer()),
    ),
  );
  const note = await (await get(bff, cookie, `${path}/notes`)).json();
  return { items, summary, nextCursor, note, receipts, bytes };
}

async function loggedHead(bff: BffProcess): Promise<string> {
  for (let tries = 0; tries < 100; tries++) {
    const line = bff.logs.find((l) => l.msg === 'audit trail head');
    if (typeof line?.auditHead === 'string') return line.auditHead;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the BFF logged no audit trail head');
}

/** A migration no build knows, recorded in every migrations table (node-pg-migrate's shape). */
async function newerBuildMigrated(ownerUrl: string): Promise<void> {
  const owner = new pg.Client({ connectionString: ownerUrl });
  await owner.connect();
  try {
    const { rows } = await owner.query<{ table_name: string }>(
      "SELECT table_name FROM information_schema.columns WHERE table_schema = 'public' AND column_name = 'run_on'",
    );
    expect(rows.length).toBeGreaterThan(0);
    for (const { table_name } of rows) {
      await owner.query(
        `INSERT INTO ${pg.escapeIdentifier(table_name)} (name, run_on) VALUES ('99991231000000000_from-a-newer-build', now())`,
      );
    }
  } finally {
    await owner.end();
  }
}

async function deployment(server: PostgresEngine, usersFile: string, name: string) {
  const bff = await startBffProcess({
    ...env,
    USERS_FILE: usersFile,
    DATABASE_URL: urls(server).DATABASE_URL,
    DATA_DIR: join(dir, name),
  });
  bffs.push(bff);
  return bff;
}

describe('backup and restore of the one database, as docs/operations/backup.md says', () => {
  it('a dump of a running deployment, restored into a fresh PostgreSQL, serves the same lists, notes, receipts and audit chain', async () => {
    // The running deployment, set up by the audit trail's page.
    const first = await startPostgres();
    servers.push(first);
    const setUp = join(dir, 'set-up.sql');
    await writeFile(setUp, await roleSetUpSql(dbPassword));
    await shOk(
      `psql --dbname="$SUPERUSER_URL" --no-psqlrc -v ON_ERROR_STOP=1 --file="${setUp}"`,
      urls(first),
    );
    await migrateAsOwner(urls(first).DATABASE_MIGRATION_URL);
    const usersFile = join(dir, 'users.json');
    await addUser({ file: usersFile, email, role: 'finance', password, scrypt: demoScrypt });
    const running = await deployment(first, usersFile, 'first');
    const startHead = await loggedHead(running);

    const cookie = await signIn(running);
    let answer = await list(running, cookie);
    for (let tries = 0; answer.freshness.syncing && tries < 300; tries++) {
      await new Promise((r) => setTimeout(r, 100));
      answer = await list(running, cookie);
    }
    expect(answer.freshness.syncing).toBe(false);
    expect((await totals(running, cookie)).summary.count).toBeGreaterThan(100);
    const id = answer.items[0]?.id as string;
    const path = `${running.url}/api/transactions/${encodeURIComponent(id)}`;
    const noted = await fetch(`${path}/notes`, {
      method: 'PATCH',
      headers: { ...headers(cookie), 'Content-Type': 'application/json' },
      body: JSON.stringify({ version: 0, memo: 'Team offsite, receipt attached', tags: ['q4'] }),
    });
    expect(noted.status, await noted.clone().text()).toBe(200);
    const attached = await fetch(`${path}/receipts`, {
      method: 'POST',
      headers: {
        ...headers(cookie),
        'Content-Type': 'application/pdf',
        'X-File-Name': 'offsite.pdf',
      },
      body: pdfReceipt(),
    });
    expect(attached.status, await attached.clone().text()).toBe(201);
    const before = await seen(running, cookie, id);
    expect(before.items.find((t) => t.id === id)?.notes).toMatchObject({
      receipts: 1,
      tags: ['q4'],
    });
    expect(before.bytes).toEqual([pdfReceipt()]);

    // Backed up while it runs; a change after the dump is not in it.
    const backupDir = join(dir, 'backups');
    const [backUp] = await shellBlocks('docs/operations/backup.md', 'Back up');
    await shOk(backUp as string, { ...urls(first), BACKUP_DIR: backupDir });
    const after = await fetch(`${path}/notes`, {
      method: 'PATCH',
      headers: { ...headers(cookie), 'Content-Type': 'application/json' },
      body: JSON.stringify({ version: 1, memo: 'changed after the dump' }),
    });
    expect(after.status).toBe(200);
    // Then an upgrade: a newer build's migration lands. This build, the one to roll back to,
    // refuses that database; the way back is the dump taken before, restored below.
    await newerBuildMigrated(urls(first).DATABASE_MIGRATION_URL);
    const refused = await sh('pnpm migrate', urls(first));
    expect(refused.code).not.toBe(0);
    expect(refused.stdout + refused.stderr).toMatch(
      /schema in DATABASE_MIGRATION_URL is newer than this build: it has 99991231000000000_from-a-newer-build/,
    );
    const [folder, ...others] = await readdir(backupDir);
    expect(others).toEqual([]);
    const backup = join(backupDir, folder as string);
    const kept = (await readFile(join(backup, 'audit-head.txt'), 'utf8')).trim().split('\n').at(-1);
    expect(kept).toMatch(/^\d+:[0-9a-f]{64}$/);
    const keptId = Number(kept?.split(':')[0]);
    expect(keptId).toBeGreaterThan(Number(startHead.split(':')[0]));

    // A fresh server, restored by the page's blocks in order.
    const second = await startPostgres();
    servers.push(second);
    const [restore, migrate, verify, ...more] = await shellBlocks(
      'docs/operations/backup.md',
      'Restore into a fresh server',
    );
    expect(more).toEqual([]);
    const vars = { ...urls(second), backup };
    const restored = await shOk(restore as string, vars);
    // The only error: the new server's own superuser, already there.
    // The superuser restored as is left as it is (not made again, its password not replaced).
    expect(restored.stderr.match(/ERROR:.*/g)).toBeNull();
    const migrated = await shOk(migrate as string, vars);
    expect(migrated.stdout).toContain('current, nothing to apply');
    expect(migrated.stdout).not.toMatch(/: applied /);
    const verified = await shOk(verify as string, vars);
    expect(verified.stdout).toContain('chain intact');
    expect(verified.stdout).toContain(`Reaches the kept head ${kept}.`);
    expect(verified.stdout).toContain(`Head: ${kept}`);
    // A head the running deployment reached after the dump: the restored trail ends before it.
    const later = (await shOk('pnpm --silent audit-log head', urls(first))).stdout.trim();
    const lost = await sh(
      `pnpm --silent audit-log verify --head "${later.split('\n').at(-1)}"`,
      vars,
    );
    expect(lost.code).toBe(1);
    expect(lost.stdout).toContain(
      `which ends at record ${keptId}: records from ${keptId + 1} on were removed from the end`,
    );

    // A new BFF on it, with the same secrets and a users file without the person: the person
    // signs in from the restored people store.
    const othersFile = join(dir, 'others.json');
    await addUser({
      file: othersFile,
      email: 'someone-else@example.test',
      role: 'finance',
      password,
      scrypt: demoScrypt,
    });
    const again = await deployment(second, othersFile, 'second');
    expect(await loggedHead(again)).toBe(kept);
    const fresh = await signIn(again);
    expect(await seen(again, fresh, id)).toEqual(before);
    // A session open at the dump is valid again (same SESSION_SECRET), as the page says.
    expect((await fetch(`${again.url}/api/session`, { headers: headers(cookie) })).status).toBe(
      200,
    );
  }, 300_000);
});
