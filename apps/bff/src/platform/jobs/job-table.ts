// The background jobs' table (migration `background-jobs`), on either engine: one row per kind
// and key, asked for by any replica, taken by one worker at a time with `FOR UPDATE SKIP
// LOCKED` and held for a lease by the database's clock (replicas' own clocks never matter).
// Every write of a try names its attempt: a try whose lease lapsed, and that another worker
// has taken since, changes nothing.
import type { SqlEngine } from '../sql/sql-engine';

export type JobRowState = 'pending' | 'running' | 'succeeded' | 'failed';

export interface JobRow<I = unknown, P = unknown> {
  kind: string;
  key: string;
  input: I;
  state: JobRowState;
  attempts: number;
  progress: P | null;
  lastError: string | null;
}

interface Row {
  kind: string;
  key: string;
  input: unknown;
  state: JobRowState;
  attempts: number;
  progress: unknown;
  last_error: string | null;
}

const COLUMNS = 'kind, key, input, state, attempts, progress, last_error';

const json = (value: unknown) => (typeof value === 'string' ? JSON.parse(value) : value);

const of = <I, P>(row: Row): JobRow<I, P> => ({
  kind: row.kind,
  key: row.key,
  input: json(row.input) as I,
  state: row.state,
  attempts: row.attempts,
  progress: (json(row.progress) ?? null) as P | null,
  lastError: row.last_error,
});

const lease = (param: string) => `now() + ${param}::double precision * interval '1 millisecond'`;

export class JobTable {
  constructor(private readonly engine: SqlEngine) {}

  async get<I, P>(kind: string, key: string): Promise<JobRow<I, P> | undefined> {
    const [row] = await this.engine.query<Row>(
      `SELECT ${COLUMNS} FROM background_job WHERE kind = $1 AND key = $2`,
      [kind, key],
    );
    return row ? of<I, P>(row) : undefined;
  }

  /**
   * Asks for the job: a new row, or an ended one made pending again with this input. A job
   * pending or running is left as it is (the asker joins it). Due at once.
   */
  async request(kind: string, key: string, input: unknown): Promise<void> {
    await this.engine.query(
      `INSERT INTO background_job (kind, key, input, requested_at, next_attempt_at)
       VALUES ($1, $2, $3::jsonb, now(), now())
       ON CONFLICT (kind, key) DO UPDATE
          SET input = EXCLUDED.input, state = 'pending', attempts = 0, progress = NULL,
              requested_at = now(), next_attempt_at = now(), finished_at = NULL, last_error = NULL
        WHERE background_job.state IN ('succeeded', 'failed')`,
      [kind, key, JSON.stringify(input)],
    );
  }

  /**
   * Takes up to `limit` due jobs of `kind` (or the one of `key`), oldest first: pending and
   * due, or running with a lapsed lease (its worker died). The take is counted (`attempts`)
   * and holds the job for `leaseMs`. Rows another worker is taking at once are skipped.
   */
  async claim<I, P>(
    kind: string,
    limit: number,
    leaseMs: number,
    key?: string,
  ): Promise<JobRow<I, P>[]> {
    const rows = await this.engine.query<Row>(
      `WITH due AS (
         SELECT kind, key FROM background_job
          WHERE kind = $1 AND state IN ('pending', 'running') AND next_attempt_at <= now()
            AND ($4::text IS NULL OR key = $4)
          ORDER BY next_attempt_at, key LIMIT $2
          FOR UPDATE SKIP LOCKED
       )
       UPDATE background_job j
          SET state = 'running', attempts = j.attempts + 1, next_attempt_at = ${lease('$3')}
         FROM due WHERE j.kind = due.kind AND j.key = due.key
       RETURNING ${COLUMNS.split(', ')
         .map((c) => `j.${c}`)
         .join(', ')}`,
      [kind, limit, leaseMs, key ?? null],
    );
    return rows.map((row) => of<I, P>(row));
  }

  /** Writes a try's progress and renews its lease; false when the try is no longer the job's. */
  async heartbeat(row: JobRow, progress: unknown, leaseMs: number): Promise<boolean> {
    const rows = await this.engine.query(
      `UPDATE background_job SET progress = $4::jsonb, next_attempt_at = ${lease('$5')}
        WHERE kind = $1 AND key = $2 AND state = 'running' AND attempts = $3 RETURNING key`,
      [row.kind, row.key, row.attempts, JSON.stringify(progress), leaseMs],
    );
    return rows.length > 0;
  }

  /** Ends a try; false when it was no longer the job's (its lease lapsed, another took it). */
  async settle(
    row: JobRow,
    outcome: { ok: true } | { ok: false; error: string },
    progress: unknown,
  ): Promise<boolean> {
    const rows = await this.engine.query(
      `UPDATE background_job
          SET state = $4, progress = $5::jsonb, finished_at = now(), last_error = $6
        WHERE kind = $1 AND key = $2 AND state = 'running' AND attempts = $3 RETURNING key`,
      [
        row.kind,
        row.key,
        row.attempts,
        outcome.ok ? 'succeeded' : 'failed',
        JSON.stringify(progress),
        outcome.ok ? null : outcome.error,
      ],
    );
    return rows.length > 0;
  }

  /** Hands a try back (its worker stopping): pending and due at once, the take not counted. */
  async release(row: JobRow): Promise<void> {
    await this.engine.query(
      `UPDATE background_job
          SET state = 'pending', attempts = attempts - 1, next_attempt_at = now()
        WHERE kind = $1 AND key = $2 AND state = 'running' AND attempts = $3`,
      [row.kind, row.key, row.attempts],
    );
  }
}
