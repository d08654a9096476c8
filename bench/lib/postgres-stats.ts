// What a benchmark's PostgreSQL has been doing: its database's own counters (pg_stat_database:
// transactions ended, rows written) and the CPU its processes used (/proc). No extension needed.
import { readdirSync, readFileSync } from 'node:fs';
import { asSuperuser } from '../../apps/bff/src/test/audit-cluster';
import { cpuMicros } from './child';

export interface PostgresActivity {
  /** Transactions committed or rolled back in the database so far. */
  transactions: number;
  /** Rows inserted, updated or deleted in the database so far. */
  rowsWritten: number;
}

/**
 * The database's counters, read as its superuser (`url`). A backend reports its counts at most
 * once a second (PostgreSQL 15's cumulative statistics), so this waits that out first; each
 * reading is itself one transaction, negligible beside a round's thousands of requests.
 */
export async function postgresActivity(url: string): Promise<PostgresActivity> {
  await new Promise((resolve) => setTimeout(resolve, 1_100));
  const { rows } = await asSuperuser<{ transactions: string; rows_written: string }>(
    url,
    `SELECT xact_commit + xact_rollback AS transactions,
            tup_inserted + tup_updated + tup_deleted AS rows_written
       FROM pg_stat_database WHERE datname = current_database()`,
  );
  const [row] = rows;
  if (!row) throw new Error('pg_stat_database has no row for the benchmark database');
  return { transactions: Number(row.transactions), rowsWritten: Number(row.rows_written) };
}

/** `/proc/<pid>/stat`'s fields after the command: [state, ppid, …]; undefined once gone. */
function statFields(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/**
 * CPU time (µs) the PostgreSQL server listening on `port` has used: its postmaster, the
 * backends it has reaped (cutime, cstime: a pool's connections come and go) and those alive.
 */
export function postgresCpuMicros(port: number): number {
  const pids = readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number);
  const postmaster = pids.find((pid) => {
    try {
      const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      return args[0]?.endsWith('/postgres') && args.includes(String(port));
    } catch {
      return false;
    }
  });
  const own = postmaster === undefined ? undefined : statFields(postmaster);
  if (postmaster === undefined || !own) throw new Error(`no PostgreSQL listening on ${port}`);
  let micros = ((Number(own[13]) + Number(own[14])) / 100) * 1_000_000 + cpuMicros(postmaster);
  for (const pid of pids) {
    if (statFields(pid)?.[1] !== String(postmaster)) continue;
    try {
      micros += cpuMicros(pid);
    } catch {
      // ended meanwhile: counted in the postmaster's cutime once reaped
    }
  }
  return micros;
}
