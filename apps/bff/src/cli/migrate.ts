// `pnpm migrate`: applies every migration of the database the replicas share, as the schema
// owner (DATABASE_MIGRATION_URL), then exits: 0 when the schema is current, 1 with the reason
// otherwise. Run it once per upgrade before starting the replicas (compose's `migrate` service
// does, and the replicas wait for it); the replicas themselves never hold the owner's login.
import pino from 'pino';
import { ConfigError, loadMigrationConfig } from '../env';
import { describeDatabaseUrl } from '../platform/audit/postgres-audit';
import { migrateDatabase } from './migrate-database';

async function main(): Promise<number> {
  let migrationUrl: string;
  try {
    ({ migrationUrl } = loadMigrationConfig(process.env));
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(error.message);
    return 1;
  }
  console.log(`Migrating ${describeDatabaseUrl(migrationUrl)}`);
  const { lines } = await migrateDatabase(migrationUrl, pino({ level: 'silent' }));
  for (const line of lines) console.log(line);
  return 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  },
);
