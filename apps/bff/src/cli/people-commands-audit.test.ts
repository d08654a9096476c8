// `pnpm users` changes are audited as the People screen's are, with the operator's OS account and
// host as the actor, on the embedded engine (trail: DATA_DIR's file) and on PostgreSQL (store and
// trail in one database); a trail that cannot take a change's record leaves the person as they
// were.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AuditRecord } from '@card-console/shared/api/audit';
import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PeopleStore } from '../features/people/people-store';
import { emptyPeople, ISSUER } from '../features/people/people-store.contract';
import type { AuditStore } from '../platform/audit/audit-store';
import { JsonlAuditStore } from '../platform/audit/jsonl-audit-store';
import { createAuditPool } from '../platform/audit/postgres-audit';
import { PostgresAuditStore } from '../platform/audit/postgres-audit-store';
import { postgresEngine, type SqlEngine } from '../platform/sql/sql-engine';
import { demoScrypt } from '../platform/users/password-hash';
import { applyAllMigrations, asSuperuser, silentLogger } from '../test/audit-cluster';
import { migratedMemoryEngine } from '../test/engines/embedded';
import { testDatabase } from '../test/engines/postgres';
import { FailingAuditStore } from '../test/failing-audit';
import { ManualClock } from '../test/manual-clock';
import { testTotpSecrets } from '../test/totp-keys';
import {
  addPerson,
  linkPerson,
  operatorActor,
  type PeopleCommands,
  removePerson,
  setPersonDisabled,
  unlinkPerson,
} from './people-commands';

const password = 'a long enough password';
const actor = operatorActor('Ops', 'Admin-Host.example');

interface Setup {
  engine: SqlEngine;
  audit: AuditStore;
  /** Runs `work` while the trail refuses every append, as that engine's trail really fails. */
  failing<T>(work: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

async function embedded(): Promise<Setup> {
  const engine = await migratedMemoryEngine();
  const dir = await mkdtemp(join(tmpdir(), 'users-cli-audit-'));
  const audit = new FailingAuditStore(new JsonlAuditStore(dir, new ManualClock()));
  return {
    engine,
    audit,
    failing: (work) => audit.failing(work),
    close: async () => {
      await engine.close();
      await rm(dir, { recursive: true, force: true, maxRetries: 5 });
    },
  };
}

async function postgres(): Promise<Setup> {
  const database = await testDatabase();
  await applyAllMigrations(database.url);
  const engine = postgresEngine(new pg.Pool({ connectionString: database.url, max: 4 }));
  const pool = createAuditPool(database.url, silentLogger, 2);
  return {
    engine,
    audit: new PostgresAuditStore(pool),
    // The table itself refuses new rows: the append fails inside PostgreSQL.
    async failing(work) {
      await asSuperuser(
        database.url,
        'ALTER TABLE audit_record ADD CONSTRAINT refuse_new_records CHECK (false) NOT VALID',
      );
      try {
        return await work();
      } finally {
        await asSuperuser(
          database.url,
          'ALTER TABLE audit_record DROP CONSTRAINT refuse_new_records',
        );
      }
    },
    close: async () => {
      await pool.end();
      await engine.close();
      await database.stop();
    },
  };
}

describe.each([
  ['the embedded engine', embedded],
  ['PostgreSQL', postgres],
])('pnpm users on %s: every change audited', (_name, setUp) => {
  let setup: Setup;
  let on: PeopleCommands;
  beforeAll(async () => {
    setup = await setUp();
    on = {
      store: new PeopleStore(setup.engine, undefined, testTotpSecrets()),
      trail: { audit: setup.audit, actor, logger: silentLogger },
    };
  }, 60_000);
  afterAll(() => setup?.close());
  beforeEach(() => emptyPeople(setup.engine));

  /** The records written since `after` (an id), oldest first, as the audit screen shows them. */
  async function recordsAfter(after: number) {
    const { items } = await setup.audit.list({ limit: 100 });
    return items
      .filter((r: AuditRecord) => Number(r.id) > after)
      .reverse()
      .map(({ actor: a, role, action, target, outcome, detail }) => ({
        actor: a,
        role,
        action,
        target,
        outcome,
        detail,
      }));
  }
  const lastId = async () => Number((await setup.audit.list({ limit: 1 })).items[0]?.id ?? 0);
  const add = (email: string, role: 'admin' | 'finance') =>
    addPerson(on, { email, role, password, scrypt: demoScrypt });

  it("records each change as the People screen does, by the operator's account and host", async () => {
    const from = await lastId();
    await add('ada@example.com', 'admin');
    await add('lee@example.com', 'finance');
    expect(await setPersonDisabled(on, 'lee@example.com', true)).toBe(true);
    expect(await setPersonDisabled(on, 'lee@example.com', true)).toBe(false);
    expect(await setPersonDisabled(on, 'lee@example.com', false)).toBe(true);
    expect(await linkPerson(on, { email: 'lee@example.com', issuer: ISSUER, subject: 's-1' })).toBe(
      true,
    );
    expect(await unlinkPerson(on, 'lee@example.com')).toBe(true);
    await removePerson(on, 'lee@example.com');
    await expect(setPersonDisabled(on, 'ada@example.com', true)).rejects.toThrow(
      'the last admin cannot be disabled',
    );

    const by = { actor: 'os:ops@admin-host.example', role: undefined };
    const lee = { ...by, target: 'lee@example.com', outcome: 'success' };
    expect(await recordsAfter(from)).toEqual([
      {
        ...by,
        action: 'person.add',
        target: 'ada@example.com',
        outcome: 'success',
        detail: 'added as admin with a password and an authenticator',
      },
      { ...lee, action: 'person.add', detail: 'added as finance with a password' },
      { ...lee, action: 'person.disable', detail: 'disabled' },
      { ...lee, action: 'person.disable', detail: 'disabled (unchanged)' },
      { ...lee, action: 'person.enable', detail: 'enabled' },
      {
        ...lee,
        action: 'person.link',
        detail: `signs in through single sign-on as s-1 at ${ISSUER}`,
      },
      { ...lee, action: 'person.unlink', detail: 'no longer linked to single sign-on' },
      { ...lee, action: 'person.remove', detail: 'removed (was finance)' },
      {
        ...by,
        action: 'person.disable',
        target: 'ada@example.com',
        outcome: 'denied',
        detail: 'last_admin: disable',
      },
    ]);
    const { items } = await setup.audit.list({ limit: 9 });
    expect(new Set(items.map((r) => r.requestId)).size).toBe(9);
  });

  it('changes nothing when the trail cannot take the record', async () => {
    await add('ada@example.com', 'admin');
    await add('lee@example.com', 'finance');
    await add('kim@example.com', 'finance');
    await setPersonDisabled(on, 'kim@example.com', true);
    await linkPerson(on, { email: 'kim@example.com', issuer: ISSUER, subject: 's-kim' });
    const people = async () =>
      (await on.store.list()).map(({ email, role, disabled, sso }) => ({
        email,
        role,
        disabled,
        sso,
      }));
    const before = await people();
    const from = await lastId();
    const refused = 'nothing was changed: the audit trail could not record it';
    await setup.failing(async () => {
      for (const change of [
        () => add('bo@example.com', 'admin'),
        () => setPersonDisabled(on, 'lee@example.com', true),
        () => setPersonDisabled(on, 'kim@example.com', false),
        () => linkPerson(on, { email: 'lee@example.com', issuer: ISSUER, subject: 's-lee' }),
        () => unlinkPerson(on, 'kim@example.com'),
        () => removePerson(on, 'lee@example.com'),
      ]) {
        await expect(change()).rejects.toThrow(refused);
      }
    });
    expect(await people()).toEqual(before);
    // The invitation `add` makes first is taken back with it: bo can be added afterwards.
    expect(await on.store.openInvitations()).toEqual([]);
    expect(await recordsAfter(from)).toEqual([]);
    await add('bo@example.com', 'finance');
    expect((await on.store.find('bo@example.com'))?.pending).toBe(false);
  });
});
