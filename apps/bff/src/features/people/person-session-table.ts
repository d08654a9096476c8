// Each person's open sessions in the SQL store the replicas share (migration
// `person-sessions`): written as sessions start, show activity and end, read by the People
// screen and by every request's check of its session. Times are kept as timestamptz and given
// back as Unix ms, as the session store keeps them.
import type { Role } from '@card-console/shared/api/meta';
import { type Audited, committed, type SqlEngine } from '../../platform/sql/sql-engine';
import type { PersonSession, SessionMethod } from './person-sessions';

interface SessionRow {
  ref: string;
  method: SessionMethod;
  started_at: Date | string;
  last_seen_at: Date | string;
}

/** What a request's check of its session needs to know, read in one statement. */
export interface SessionStanding {
  role: Role;
  disabled: boolean;
  version: number;
  ssoSubject: string | null;
  /** An admin ended this session (or it was signed out) on some replica. */
  ended: boolean;
}

const iso = (ms: number) => new Date(ms).toISOString();
const ms = (value: Date | string) => new Date(value).getTime();

/** How long a row is kept after its session could last no longer: a day of history. */
const KEEP_AFTER_MS = 24 * 60 * 60 * 1000;

export class PersonSessionTable {
  constructor(private readonly engine: SqlEngine) {}

  /** A session started; older rows of the person's that no session can use any more go. */
  async insert(session: {
    ref: string;
    email: string;
    method: SessionMethod;
    at: number;
    personVersion?: number | undefined;
    absoluteMs: number;
  }): Promise<void> {
    await this.engine.query(`DELETE FROM person_session WHERE email = $1 AND started_at < $2`, [
      session.email,
      iso(session.at - session.absoluteMs - KEEP_AFTER_MS),
    ]);
    await this.engine.query(
      `INSERT INTO person_session (ref, email, method, person_version, started_at, last_seen_at)
       VALUES ($1, $2, $3, $4, $5, $5) ON CONFLICT (ref) DO NOTHING`,
      [session.ref, session.email, session.method, session.personVersion ?? null, iso(session.at)],
    );
  }

  async touch(ref: string, at: number): Promise<void> {
    await this.engine.query(
      `UPDATE person_session SET last_seen_at = $2 WHERE ref = $1 AND last_seen_at < $2`,
      [ref, iso(at)],
    );
  }

  async end(ref: string, at: number): Promise<void> {
    await this.engine.query(
      `UPDATE person_session SET ended_at = $2 WHERE ref = $1 AND ended_at IS NULL`,
      [ref, iso(at)],
    );
  }

  /** The person and whether this session of theirs was ended; undefined when there is no such person. */
  async standing(email: string, ref: string | undefined): Promise<SessionStanding | undefined> {
    const [row] = await this.engine.query<{
      role: Role;
      disabled: boolean;
      version: number;
      sso_subject: string | null;
      ended: boolean;
    }>(
      `SELECT p.role, p.disabled, p.version, p.sso_subject, (s.ended_at IS NOT NULL) AS ended
         FROM person p LEFT JOIN person_session s ON s.ref = $2 AND s.email = p.email
        WHERE p.email = $1`,
      [email, ref ?? null],
    );
    return (
      row && {
        role: row.role,
        disabled: row.disabled,
        version: row.version,
        ssoSubject: row.sso_subject,
        ended: row.ended,
      }
    );
  }

  /**
   * The sessions that may still be used: not ended, within the idle and absolute limits, and
   * started at the person's current version by a person who is not disabled. Newest first.
   */
  async open(email: string, now: number, limits: Limits): Promise<PersonSession[]> {
    const rows = await this.engine.query<SessionRow>(
      `SELECT s.ref, s.method, s.started_at, s.last_seen_at
         FROM person_session s JOIN person p ON p.email = s.email
        WHERE s.email = $1 AND s.ended_at IS NULL AND s.last_seen_at > $2 AND s.started_at > $3
          AND NOT p.disabled AND (s.person_version IS NULL OR s.person_version = p.version)
        ORDER BY s.started_at DESC, s.ref`,
      [email, iso(now - limits.idleMs), iso(now - limits.absoluteMs)],
    );
    return rows.map((row) => ({
      id: row.ref,
      method: row.method,
      startedAt: ms(row.started_at),
      lastSeenAt: ms(row.last_seen_at),
    }));
  }

  /**
   * Ends the person's sessions still within the limits (`ref`: only that one); how many. The
   * change's audit hook, if any, runs last in its transaction with that number.
   */
  async endOpen(
    email: string,
    ref: string | undefined,
    now: number,
    limits: Limits,
    audited?: Audited<number>,
  ): Promise<number> {
    return this.engine.transaction(async (tx) => {
      const rows = await tx.query(
        `UPDATE person_session SET ended_at = $2
          WHERE email = $1 AND ended_at IS NULL AND last_seen_at > $3 AND started_at > $4
            AND ($5::text IS NULL OR ref = $5)
          RETURNING ref`,
        [email, iso(now), iso(now - limits.idleMs), iso(now - limits.absoluteMs), ref ?? null],
      );
      return committed(tx, rows.length, audited);
    });
  }
}

export interface Limits {
  idleMs: number;
  absoluteMs: number;
}
