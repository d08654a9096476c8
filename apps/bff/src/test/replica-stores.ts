import pg from 'pg';
import { postgresEngine } from '../platform/sql/sql-engine';
import { openStores } from '../stores';
import { silentLogger } from './audit-cluster';

/**
 * One replica's stores (the index's tables, notes, people, alerts, the security policy) on a
 * shared PostgreSQL database, through a pool of its own, as each process has with DATABASE_URL.
 */
export function replicaStores(databaseUrl: string, connections = 4) {
  return openStores({
    open: async () =>
      postgresEngine(new pg.Pool({ connectionString: databaseUrl, max: connections })),
    logger: silentLogger,
  });
}
