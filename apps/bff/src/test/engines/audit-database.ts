// A database for the audit trail set up the way docs/operations/audit-trail.md ("PostgreSQL")
// tells an operator to: the writer role, and the BFF's own login granted only that role.
// The schema itself is applied by the first BFF started with DATABASE_MIGRATION_URL.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { PostgresEngine } from './postgres';

export async function prepareAuditDatabase(
  engine: PostgresEngine,
  name: string,
): Promise<{ ownerUrl: string; appUrl: string }> {
  const ownerUrl = await engine.createDatabase(name);
  const password = randomBytes(18).toString('base64url');
  const admin = new pg.Client({ connectionString: engine.adminUrl });
  await admin.connect();
  try {
    await admin.query('CREATE ROLE card_console_audit_writer NOLOGIN');
    await admin.query('CREATE ROLE card_console_index_writer NOLOGIN');
    await admin.query(
      `CREATE ROLE card_console LOGIN PASSWORD '${password}' IN ROLE card_console_audit_writer, card_console_index_writer`,
    );
  } finally {
    await admin.end();
  }
  return { ownerUrl, appUrl: engine.urlFor(name, 'card_console', password) };
}
