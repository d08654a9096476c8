import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AuditTestCluster,
  applyAllMigrations,
  asSuperuser,
  auditTestCluster,
  silentLogger,
} from '../../test/audit-cluster';
import { enginesSets, MIGRATIONS_TABLE, setsMigrations } from '../sql/migrations';
import { AuditSetupError } from './audit-schema';
import { connectPostgresAudit, createAuditPool, describeDatabaseUrl } from './postgres-audit';

let cluster: AuditTestCluster;
beforeAll(async () => {
  cluster = await auditTestCluster();
}, 60_000);
afterAll(() => cluster?.stop());

const sample = { actor: 'ada@example.com', action: 'card.update', outcome: 'success' } as const;

/** The error a promise rejects with (fails the test if it resolves). */
async function failure(promise: Promise<unknown>): Promise<Error & { code?: string }> {
  try {
    await promise;
  } catch (error) {
    return error as Error & { code?: string };
  }
  throw new Error('expected a failure');
}

describe('connectPostgresAudit', () => {
  it('starts on a schema `pnpm migrate` applied as the owner, run three times at once (it applies once)', async () => {
    const db = await cluster.empty();
    const runs = await Promise.all([1, 2, 3].map(() => applyAllMigrations(db.ownerUrl)));
    const known = await setsMigrations(enginesSets('postgres'));
    expect(runs.flat().sort()).toEqual(known);
    const replicas = await Promise.all(
      [1, 2].map(() => connectPostgresAudit({ url: db.bffUrl, logger: silentLogger })),
    );
    const record = await replicas[1]?.store.append({ ...sample, requestId: 'r1' });
    expect(record?.id).toBe('1');
    const { rows } = await asSuperuser<{ name: string }>(
      db.ownerUrl,
      `SELECT name FROM ${MIGRATIONS_TABLE} ORDER BY id`,
    );
    expect(rows.map((r) => r.name)).toEqual(known);
    await Promise.all(replicas.map((r) => r.close()));
  });

  it('works with the roles apps/bff/README.md tells an operator to create', async () => {
    // The SQL of docs/operations/audit-trail.md, with names of this test's own (roles belong to
    // the whole cluster).
    const owner = `${cluster.bffRole}_owner`;
    const login = `${cluster.bffRole}_app`;
    const database = `${cluster.bffRole}_db`;
    const fresh = await cluster.fresh();
    const admin = new URL(fresh.ownerUrl);
    admin.pathname = '/postgres';
    for (const sql of [
      `CREATE ROLE ${owner} LOGIN PASSWORD 'owner-pw'`,
      `CREATE DATABASE ${database} OWNER ${owner}`,
      `CREATE ROLE ${login} LOGIN PASSWORD 'app-pw'`,
      `GRANT card_console_audit_writer TO ${login}`,
    ]) {
      await asSuperuser(admin.toString(), sql);
    }
    const as = (user: string, password: string) => {
      const url = new URL(admin);
      url.pathname = `/${database}`;
      url.username = user;
      url.password = password;
      return url.toString();
    };
    try {
      await applyAllMigrations(as(owner, 'owner-pw'));
      const audit = await connectPostgresAudit({ url: as(login, 'app-pw'), logger: silentLogger });
      expect((await audit.store.append({ ...sample, requestId: 'r1' })).id).toBe('1');
      await audit.close();
      // The owner is refused as the BFF's login: it could change records.
      const error = await failure(
        connectPostgresAudit({ url: as(owner, 'owner-pw'), logger: silentLogger }),
      );
      expect(error.message).toMatch(/may update, delete, truncate/);
    } finally {
      await asSuperuser(admin.toString(), `DROP DATABASE ${database} WITH (FORCE)`);
      await asSuperuser(admin.toString(), `DROP ROLE ${owner}`);
      await asSuperuser(admin.toString(), `DROP ROLE ${login}`);
    }
  });

  it('refuses to start on a schema behind this build, saying to run `pnpm migrate`', async () => {
    const db = await cluster.empty();
    const error = await failure(connectPostgresAudit({ url: db.bffUrl, logger: silentLogger }));
    expect(error).toBeInstanceOf(AuditSetupError);
    expect(error.message).toMatch(/behind this build \(not applied: .*\): run `pnpm migrate`/s);
  });

  it('refuses a schema a newer build migrated, at start-up and in `pnpm migrate`, naming both versions', async () => {
    const db = await cluster.fresh();
    const newest = (await setsMigrations(enginesSets('postgres'))).at(-1);
    await asSuperuser(
      db.ownerUrl,
      `INSERT INTO ${MIGRATIONS_TABLE} (name, run_on) VALUES ('99991231000000000_from-a-newer-build', now())`,
    );
    const error = await failure(connectPostgresAudit({ url: db.bffUrl, logger: silentLogger }));
    expect(error).toBeInstanceOf(AuditSetupError);
    expect(error.message).toContain(
      `newer than this build: it has 99991231000000000_from-a-newer-build, and the newest migration this build knows is ${newest}`,
    );
    const migrating = await failure(applyAllMigrations(db.ownerUrl));
    expect(migrating.message).toMatch(/newer than this build/);
  });

  it('refuses to start as a role that could change or delete records (the owner, a superuser)', async () => {
    const db = await cluster.fresh();
    const error = await failure(connectPostgresAudit({ url: db.ownerUrl, logger: silentLogger }));
    expect(error).toBeInstanceOf(AuditSetupError);
    expect(error.message).toMatch(
      /role postgres may update, delete, truncate audit records.*card_console_audit_writer/,
    );
  });

  it('refuses to start as a login without the writer role, naming the grant it needs', async () => {
    const db = await cluster.fresh();
    const role = `${cluster.bffRole}_bare`;
    await asSuperuser(db.ownerUrl, `CREATE ROLE ${role} LOGIN`);
    try {
      const url = new URL(db.bffUrl);
      url.username = role;
      url.password = '';
      const error = await failure(
        connectPostgresAudit({ url: url.toString(), logger: silentLogger }),
      );
      expect(error).toBeInstanceOf(AuditSetupError);
      expect(error.message).toMatch(/grant it card_console_audit_writer/);
    } finally {
      await asSuperuser(db.ownerUrl, `DROP ROLE ${role}`);
    }
  });

  it('names the database without its password when it cannot be reached', async () => {
    const url = 'postgres://bff:s3cret-pw@127.0.0.1:1/cards';
    const error = await failure(connectPostgresAudit({ url, logger: silentLogger }));
    expect(error).toBeInstanceOf(AuditSetupError);
    expect(error.message).toContain('bff@127.0.0.1:1/cards');
    expect(error.message).not.toContain('s3cret-pw');
    expect(describeDatabaseUrl(url)).toBe('bff@127.0.0.1:1/cards');
  });
});

describe('createAuditPool', () => {
  it('survives the server ending a connection the pool is handing out', async () => {
    const db = await cluster.fresh();
    const pool = createAuditPool(db.bffUrl, silentLogger, 1);
    const first = await pool.connect();
    const next = pool.connect(); // waits for the pool's only connection
    // Released, the connection goes to `next` at once, before `next` resumes: what the parser
    // does when the server's FATAL follows the last answer in the same chunk is this event.
    first.release();
    const ended = new Error('terminating connection due to administrator command');
    expect(() => first.emit('error', ended)).not.toThrow();
    (await next).release(true);
    expect(pool.totalCount).toBe(0);
    await pool.end();
  });
});

describe('the audit trail in PostgreSQL is append-only in fact', () => {
  it("lets the BFF's login insert and select, and refuses it UPDATE, DELETE and TRUNCATE", async () => {
    const db = await cluster.fresh();
    const audit = await connectPostgresAudit({ url: db.bffUrl, logger: silentLogger });
    await audit.store.append({ ...sample, requestId: 'r1' });
    await audit.close();
    const bff = new pg.Client({ connectionString: db.bffUrl });
    await bff.connect();
    try {
      const { rows } = await bff.query('SELECT id, actor FROM audit_record');
      expect(rows).toEqual([{ id: '1', actor: 'ada@example.com' }]);
      for (const sql of [
        "UPDATE audit_record SET actor = 'someone-else@example.com'",
        'DELETE FROM audit_record',
        'TRUNCATE audit_record',
      ]) {
        const error = await failure(bff.query(sql));
        expect(error.code, sql).toBe('42501');
        expect(error.message).toMatch(/permission denied/);
      }
      const { rows: after } = await bff.query('SELECT id, actor FROM audit_record');
      expect(after).toEqual(rows);
    } finally {
      await bff.end();
    }
  });

  it("refuses the BFF's login disabling the trigger or dropping the table", async () => {
    const db = await cluster.fresh();
    const bff = new pg.Client({ connectionString: db.bffUrl });
    await bff.connect();
    try {
      for (const sql of [
        'ALTER TABLE audit_record DISABLE TRIGGER USER',
        'ALTER TABLE audit_record DISABLE TRIGGER audit_record_append_only',
        'DROP TRIGGER audit_record_append_only ON audit_record',
        'DROP TABLE audit_record',
      ]) {
        const error = await failure(bff.query(sql));
        expect(error.code, sql).toBe('42501');
        expect(error.message, sql).toMatch(/must be owner/);
      }
    } finally {
      await bff.end();
    }
    const { rows } = await asSuperuser<{ enabled: string }>(
      db.ownerUrl,
      "SELECT tgenabled AS enabled FROM pg_trigger WHERE tgname = 'audit_record_append_only'",
    );
    expect(rows).toEqual([{ enabled: 'O' }]);
  });

  it('refuses UPDATE, DELETE and TRUNCATE to the owner too while the trigger is on; the owner can turn it off, which is why no replica holds that login', async () => {
    const db = await cluster.fresh();
    const audit = await connectPostgresAudit({ url: db.bffUrl, logger: silentLogger });
    await audit.store.append({ ...sample, requestId: 'r1' });
    await audit.close();
    for (const sql of [
      "UPDATE audit_record SET actor = 'x@example.com'",
      'DELETE FROM audit_record',
      'TRUNCATE audit_record',
    ]) {
      const error = await failure(asSuperuser(db.ownerUrl, sql));
      expect(error.message, sql).toMatch(/append-only/);
    }
    // What the trigger cannot stop (rolled back here): the chain and a head kept elsewhere show it.
    const owner = new pg.Client({ connectionString: db.ownerUrl });
    await owner.connect();
    try {
      await owner.query('BEGIN');
      await owner.query('ALTER TABLE audit_record DISABLE TRIGGER USER');
      await owner.query('DELETE FROM audit_record');
      const { rows: left } = await owner.query('SELECT count(*)::int AS n FROM audit_record');
      expect(left).toEqual([{ n: 0 }]);
    } finally {
      await owner.query('ROLLBACK');
      await owner.end();
    }
    const { rows } = await asSuperuser(db.ownerUrl, 'SELECT count(*)::int AS n FROM audit_record');
    expect(rows[0]?.n).toBe(1);
  });
});
