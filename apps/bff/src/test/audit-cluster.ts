// Test helpers for the PostgreSQL audit trail (not a test file): one migrated template database
// per test file, fresh copies of it, and a login role set up as docs/operations/audit-trail.md
// tells an operator to (granted card_console_audit_writer, nothing else).
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import pino, { type Logger } from 'pino';
import { WRITER_ROLE } from '../platform/audit/audit-schema';
import { applyMigrations } from '../platform/sql/migrations';
import { postgresEngine } from '../platform/sql/sql-engine';
import { type PostgresEngine, startPostgres, testDatabase } from './engines/postgres';

export interface AuditTestDatabase {
  name: string;
  /** A superuser URL: the schema owner, and what a tamperer would have. */
  ownerUrl: string;
  /** The BFF's login: may only insert and select (through the writer role). */
  bffUrl: string;
}

export interface AuditTestCluster {
  /** The server, when this helper started it (`own`, or no TEST_DATABASE_URL): it can be stopped. */
  engine?: PostgresEngine;
  /** The BFF's login role's name (one per cluster helper). */
  bffRole: string;
  /** A new, migrated, empty database. */
  fresh(): Promise<AuditTestDatabase>;
  /** A new database with nothing in it (not migrated). */
  empty(): Promise<AuditTestDatabase>;
  stop(): Promise<void>;
}

export const silentLogger: Logger = pino({ level: 'silent' });

let counter = 0;

/** Runs `sql` as the superuser in `url`'s database. */
export async function asSuperuser<T extends pg.QueryResultRow = pg.QueryResultRow>(
  url: string,
  sql: string,
  values: unknown[] = [],
): Promise<pg.QueryResult<T>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await client.query<T>(sql, values);
  } finally {
    await client.end();
  }
}

/**
 * A migrated template database in the cluster at TEST_DATABASE_URL, or in a cluster of its own
 * (always, with `own`: for tests that stop the server).
 */
export async function auditTestCluster(options: { own?: boolean } = {}): Promise<AuditTestCluster> {
  const template = options.own ? await ownDatabase() : await testDatabase();
  const templateUrl = new URL(template.url);
  const templateName = templateUrl.pathname.slice(1);
  const adminUrl = withDatabase(template.url, 'postgres');
  const bffRole = `cc_audit_bff_${process.pid}_${counter++}`;
  const password = randomBytes(18).toString('base64url');
  await applyAllMigrations(template.url);
  await asSuperuser(
    adminUrl,
    `CREATE ROLE ${bffRole} LOGIN PASSWORD '${password}'; GRANT ${WRITER_ROLE} TO ${bffRole}`,
  );
  const made: string[] = [];
  const create = async (fromTemplate: boolean): Promise<AuditTestDatabase> => {
    const name = `${templateName}_${made.length + 1}`;
    await asSuperuser(
      adminUrl,
      `CREATE DATABASE ${name}${fromTemplate ? ` TEMPLATE ${templateName}` : ''}`,
    );
    made.push(name);
    const bffUrl = new URL(withDatabase(template.url, name));
    bffUrl.username = bffRole;
    bffUrl.password = password;
    return { name, ownerUrl: withDatabase(template.url, name), bffUrl: bffUrl.toString() };
  };
  return {
    ...(template.engine ? { engine: template.engine } : {}),
    bffRole,
    fresh: () => create(true),
    empty: () => create(false),
    async stop() {
      if (!template.engine) {
        // A cluster given by TEST_DATABASE_URL outlives us: leave nothing behind in it.
        for (const name of [...made, templateName]) {
          await asSuperuser(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        }
        await asSuperuser(adminUrl, `DROP ROLE IF EXISTS ${bffRole}`);
      }
      await template.stop();
    },
  };
}

async function ownDatabase() {
  const engine = await startPostgres();
  const url = await engine.createDatabase(`cc_audit_${process.pid}_${counter++}`);
  return { url, engine, stop: () => engine.destroy() };
}

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

/** `pnpm migrate`'s work in this process: every set the database holds, as `url`'s login. */
export async function applyAllMigrations(url: string): Promise<string[]> {
  const owner = postgresEngine(new pg.Pool({ connectionString: url, max: 1 }));
  try {
    return await applyMigrations(owner, silentLogger);
  } finally {
    await owner.close();
  }
}
