// The database records what was applied (node-pg-migrate's table of names, one for every set:
// platform/sql/migrations.ts). A build compares the migrations it knows with what the database
// holds before it serves: behind, it says to run `pnpm migrate` (serving replicas never hold the
// schema owner's login); ahead (a newer build migrated it), it refuses, since its queries may no
// longer fit the tables.

/** The order node-pg-migrate applies migration files in (their names start with a timestamp). */
export const migrationOrder = (a: string, b: string) =>
  a.localeCompare(b, undefined, { numeric: true });

/** How to bring a database that is behind up to date, for every message that says so. */
export const RUN_MIGRATE =
  'run `pnpm migrate` (the compose service `migrate`) with DATABASE_MIGRATION_URL set to the schema owner\'s URL, then start the replicas (docs/operations/audit-trail.md, "Migrations")';

export interface MigrationMismatch {
  /** Behind: `pnpm migrate` brings it up to date. Otherwise a newer build migrated it. */
  behind: boolean;
  message: string;
}

/**
 * Why this build must not serve `set`'s schema as the database holds it, or undefined when the
 * two match. `where` names the database for the message (never with its password).
 */
export function migrationMismatch(
  set: string,
  where: string,
  known: readonly string[],
  applied: readonly string[],
): MigrationMismatch | undefined {
  const newest = [...known].sort(migrationOrder).at(-1);
  const unknown = applied.filter((name) => !known.includes(name)).sort(migrationOrder);
  const later = unknown.filter((name) => newest === undefined || migrationOrder(name, newest) > 0);
  if (later.length > 0) {
    return {
      behind: false,
      message: `The ${set}'s schema in ${where} is newer than this build: it has ${later.join(', ')}, and the newest migration this build knows is ${newest ?? '(none)'}. Run the build that migrated it, or a newer one; an older build never serves a newer schema.`,
    };
  }
  if (unknown.length > 0) {
    return {
      behind: false,
      message: `The ${set}'s schema in ${where} has migrations this build does not know (${unknown.join(', ')}): run the build that applied them.`,
    };
  }
  const missing = known.filter((name) => !applied.includes(name));
  if (missing.length > 0) {
    return {
      behind: true,
      message: `The ${set}'s schema in ${where} is behind this build (not applied: ${missing.join(', ')}): ${RUN_MIGRATE}.`,
    };
  }
  return undefined;
}

/**
 * The names node-pg-migrate recorded in `table`, in the order they were applied; none when the
 * table is not there yet (a database never migrated). `run` is the caller's own connection.
 */
export async function appliedMigrations(
  run: (sql: string) => Promise<readonly Record<string, unknown>[]>,
  table: string,
): Promise<string[]> {
  const [state] = await run(`SELECT to_regclass('${table}') IS NOT NULL AS present`);
  if (!state?.present) return [];
  const rows = await run(`SELECT name FROM ${table} ORDER BY run_on, id`);
  return rows.map((row) => String(row.name));
}
