// The upgrade as an operator meets it: a replica of the new build started, with DATABASE_URL, on
// the DATA_DIR where the previous build kept its passkeys in second-factors.json. The production
// entry point brings them into PostgreSQL before it serves, says so in its log, audits each
// person in the trail, and keeps the file renamed; the next start finds nothing to do.
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUser } from '../../cli/add-user';
import { migrateAsOwner, prepareAuditDatabase } from '../../test/engines/audit-database';
import { type BffProcess, startBffProcess } from '../../test/engines/bff-process';
import { type PostgresEngine, startPostgres } from '../../test/engines/postgres';
import { FileFactorStore, SECOND_FACTORS_FILE } from './file-factor-store';

let postgres: PostgresEngine;
let dir: string;
let db: { ownerUrl: string; appUrl: string };
let replica: BffProcess | undefined;
const ADMIN = 'ada@example.test';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cc-factors-upgrade-'));
  postgres = await startPostgres();
  db = await prepareAuditDatabase(postgres, 'card_console');
  await migrateAsOwner(db.ownerUrl);
  await addUser({
    file: join(dir, 'users.json'),
    email: ADMIN,
    role: 'admin',
    password: 'correct horse battery staple',
  });
  const previous = await FileFactorStore.open(join(dir, 'data'));
  await previous.addPasskey(ADMIN, {
    id: 'upgrade-key-1',
    publicKey: 'pQECAyYgASFYIA',
    counter: 12,
    name: 'YubiKey',
    createdAt: 1_760_000_000_000,
  });
  await previous.setTotpDisabled(ADMIN, true);
}, 120_000);

afterAll(async () => {
  replica?.kill('SIGKILL');
  await postgres?.destroy();
  await rm(dir, { recursive: true, force: true, maxRetries: 5 });
});

// One deployment's secrets, the same at each start (as an operator's are): the users file's
// people are imported at the first start, their TOTP secrets sealed with this key, which the next
// start must open.
const secrets = {
  CARD_API_KEY: randomBytes(24).toString('base64url'),
  SESSION_SECRET: randomBytes(32).toString('base64url'),
  TOTP_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
};

const start = () =>
  startBffProcess({
    ...secrets,
    CARD_API_BASE_URL: 'http://127.0.0.1:9',
    USERS_FILE: join(dir, 'users.json'),
    PUBLIC_ORIGIN: 'http://localhost:8080',
    DATA_DIR: join(dir, 'data'),
    WEB_DIST: join(dir, 'no-web'),
    LOG_LEVEL: 'info',
    DATABASE_URL: db.appUrl,
  });

async function asOwner<R extends pg.QueryResultRow>(sql: string): Promise<R[]> {
  const client = new pg.Client({ connectionString: db.ownerUrl });
  await client.connect();
  try {
    return (await client.query<R>(sql)).rows;
  } finally {
    await client.end();
  }
}

const importLines = (p: BffProcess) =>
  p.logs.filter((l) => String(l.msg).startsWith('second factors imported into PostgreSQL'));

describe('a replica started on the DATA_DIR of a build that kept passkeys in a file', () => {
  it('brings them into PostgreSQL before serving, audits the person, keeps the file; the next start imports nothing', async () => {
    replica = await start();
    const file = join(dir, 'data', SECOND_FACTORS_FILE);
    expect((await readdir(join(dir, 'data'))).filter((f) => f.startsWith('second'))).toEqual([
      `${SECOND_FACTORS_FILE}.imported`,
    ]);
    expect(
      await asOwner(
        `SELECT f.email, f.totp_disabled, p.id, p.counter::int AS counter, p.name
           FROM person_factors f JOIN person_passkey p USING (email)`,
      ),
    ).toEqual([
      { email: ADMIN, totp_disabled: true, id: 'upgrade-key-1', counter: 12, name: 'YubiKey' },
    ]);
    expect(
      await asOwner(
        `SELECT actor, role, action, outcome, method, target FROM audit_record
          WHERE action = 'factor.enrolled'`,
      ),
    ).toEqual([
      {
        actor: 'system',
        role: null,
        action: 'factor.enrolled',
        outcome: 'success',
        method: 'passkey',
        target: ADMIN,
      },
    ]);
    // The log is read once the replica has exited: the production logger writes its lines in
    // batches (a quarter of a second apart), the last as the process exits.
    replica.kill('SIGTERM');
    await replica.exited;
    expect(importLines(replica)).toEqual([
      expect.objectContaining({ level: 30, people: 1, passkeys: 1, skipped: 0, file }),
    ]);

    replica = await start();
    replica.kill('SIGTERM');
    await replica.exited;
    // Its last line is there: the log was read to its end.
    expect(replica.logs.some((l) => l.msg === 'stopped')).toBe(true);
    expect(importLines(replica)).toEqual([]);
    expect(replica.logs.filter((l) => Number(l.level) >= 50)).toEqual([]);
    replica = undefined;
  }, 180_000);
});
