// A database for the audit trail set up the way docs/operations/audit-trail.md ("PostgreSQL")
// tells an operator to: the writer roles, and the BFF's own login granted only those. The
// schema itself is applied by `pnpm migrate` as the owner (`runMigrate`), before any replica.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { bundled } from './bff-bundle';
import type { PostgresEngine } from './postgres';

const bffDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/**
 * `pnpm migrate` as compose's `migrate` job runs it: its own process, the bundle's `migrate.js`
 * (under Vitest, the run's bundle, `bff-bundle.setup.ts`); a benchmark, with no bundle made for
 * it, runs the source under tsx.
 */
export function runMigrate(
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      process.env.VITEST ? [bundled('migrate.js')] : ['--import', 'tsx', 'src/cli/migrate.ts'],
      { cwd: bffDir, env: { PATH: process.env.PATH ?? '', ...env }, timeout: 120_000 },
      (error, stdout, stderr) =>
        resolve({ code: error ? ((error as { code?: number }).code ?? null) : 0, stdout, stderr }),
    );
  });
}

/** Applies every migration as the owner; throws with what `pnpm migrate` said when it fails. */
export async function migrateAsOwner(ownerUrl: string): Promise<void> {
  const run = await runMigrate({ DATABASE_MIGRATION_URL: ownerUrl });
  if (run.code !== 0)
    throw new Error(`pnpm migrate failed (${run.code}):\n${run.stdout}${run.stderr}`);
}

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
