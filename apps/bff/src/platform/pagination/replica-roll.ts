import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { SqlEngine } from '../sql/sql-engine';
import type { ServicePace } from './pace';

/**
 * The replicas alive, counted for what they divide among themselves: the card service's
 * published rate limit is its key's, whichever replica calls, so each replica's walks keep to
 * their part of it (`ServicePace.share`). One process without DATABASE_URL is alone and keeps
 * no roll.
 */
export interface ReplicaRoll {
  /**
   * `id` is alive for `leaseMs` more; resolves with how many replicas are alive now, `id`
   * included (a replica whose lease has lapsed is not).
   */
  beat(id: string, leaseMs: number): Promise<number>;
  /** `id` stops: it is no longer counted. */
  leave(id: string): Promise<void>;
}

/**
 * The roll in the shared database: a row per replica, with a lease by the database's clock (the
 * replicas' own clocks never matter). A beat renews its own lease, removes lapsed rows and
 * counts the live ones in one statement.
 */
export class SqlReplicaRoll implements ReplicaRoll {
  constructor(private readonly engine: SqlEngine) {}

  async beat(id: string, leaseMs: number): Promise<number> {
    const [row] = await this.engine.query<{ alive: string }>(
      `WITH renewed AS (
         INSERT INTO replica_lease (id, lease_until)
         VALUES ($1, clock_timestamp() + $2 * interval '1 millisecond')
         ON CONFLICT (id) DO UPDATE SET lease_until = EXCLUDED.lease_until
         RETURNING id),
       lapsed AS (
         DELETE FROM replica_lease WHERE lease_until <= clock_timestamp() AND id <> $1)
       SELECT (SELECT count(*) FROM replica_lease
                WHERE id <> $1 AND lease_until > clock_timestamp())
              + (SELECT count(*) FROM renewed) AS alive`,
      [id, Math.max(1, Math.round(leaseMs))],
    );
    return Math.max(1, Number(row?.alive ?? 1));
  }

  async leave(id: string): Promise<void> {
    await this.engine.query('DELETE FROM replica_lease WHERE id = $1', [id]);
  }
}

export interface LimitSharing {
  /** Settles once the first beat has been answered (or has failed). */
  readonly ready: Promise<void>;
  /** Stops beating and leaves the roll (a failure to reach it is logged: the lease lapses). */
  stop(): Promise<void>;
}

/** How long a replica counts as alive after its last beat; it beats three times within it. */
export const REPLICA_LEASE_MS = 15_000;

/**
 * Keeps `pace` told how many replicas share the published limit: a beat at once, then every
 * third of the lease. While the roll cannot be reached, the last count stands (a replica that
 * stopped meanwhile is counted until the roll answers again: the walks stay within the limit).
 */
export function shareThePublishedLimit(options: {
  roll: ReplicaRoll;
  pace: Pick<ServicePace, 'share'>;
  logger: Logger;
  leaseMs?: number;
  id?: string;
}): LimitSharing {
  const { roll, pace, logger } = options;
  const leaseMs = options.leaseMs ?? REPLICA_LEASE_MS;
  const id = options.id ?? randomUUID();
  let failing = false;
  const beat = () =>
    (last = roll.beat(id, leaseMs).then(
      (alive) => {
        if (failing) logger.info({ replicas: alive }, 'the replicas’ roll answers again');
        failing = false;
        pace.share(alive);
      },
      (error: unknown) => {
        if (!failing) {
          logger.warn(
            { err: error },
            'the replicas’ roll could not be reached: the walks keep their last share of the published rate limit',
          );
        }
        failing = true;
      },
    ));
  let last: Promise<void> = Promise.resolve();
  const ready = beat();
  const timer = setInterval(beat, leaseMs / 3);
  timer.unref();
  return {
    ready,
    async stop() {
      clearInterval(timer);
      // A beat still on its way would count this replica again after it left.
      await last;
      await roll.leave(id).catch((error: unknown) => {
        logger.warn({ err: error }, 'this replica could not leave the roll: its lease lapses');
      });
    },
  };
}
