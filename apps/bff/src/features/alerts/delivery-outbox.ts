// The outbox of alert deliveries (migration `alert-delivery`): written with the alert it
// delivers (`AlertStore.raise`), taken, tried and settled by the delivery worker of every
// replica. The key is the primary key, so a delivery exists once; a delivery already settled is
// never sent again, whichever replica or restart picks it up. Due and lease times are the
// database's (`now()`), so replicas whose clocks differ agree on them.
import type { SqlEngine } from '../../platform/sql/sql-engine';
import type { AlertPayload } from './alert-evaluator';
import type { DeliveryChannel, PlannedDelivery } from './delivery-plan';
import { withRuleOwner } from './rule-name-for';

export interface OutboxDelivery {
  key: string;
  alertId: string | null;
  ruleId: string | null;
  channel: DeliveryChannel;
  recipient: string;
  /** `folded`: an email past its recipient's hourly cap, listed in their digest instead. */
  state: 'pending' | 'sent' | 'failed' | 'folded';
  attempts: number;
  createdAt: string;
  /** The alert's idempotency key and payload (none for a digest). */
  alertKey: string | null;
  payload: AlertPayload | null;
}

interface Row {
  key: string;
  alert_id: string | null;
  rule_id: string | null;
  channel: DeliveryChannel;
  recipient: string;
  state: OutboxDelivery['state'];
  attempts: number;
  created_at: Date | string;
  idempotency_key: string | null;
  payload: AlertPayload | string | null;
  rule_exists: boolean;
  rule_owner: string | null;
}

/** The rule of an alert as read with it: whom it is for, for alerts raised before that was kept. */
const RULE = `r.id IS NOT NULL AS rule_exists, r.owner_email AS rule_owner`;

const SELECT = `SELECT d.key, d.alert_id, d.rule_id, d.channel, d.recipient, d.state, d.attempts,
         d.created_at, a.idempotency_key, a.payload, ${RULE}
    FROM alert_delivery d LEFT JOIN alert a ON a.id = d.alert_id
    LEFT JOIN alert_rule r ON r.id = a.rule_id`;

const payloadOf = (row: {
  payload: AlertPayload | string;
  rule_exists: boolean;
  rule_owner: string | null;
}): AlertPayload =>
  withRuleOwner(
    typeof row.payload === 'string' ? (JSON.parse(row.payload) as AlertPayload) : row.payload,
    { exists: row.rule_exists, ownerEmail: row.rule_owner },
  );

const of = (row: Row): OutboxDelivery => ({
  key: row.key,
  alertId: row.alert_id,
  ruleId: row.rule_id,
  channel: row.channel,
  recipient: row.recipient,
  state: row.state,
  attempts: row.attempts,
  createdAt: new Date(row.created_at).toISOString(),
  alertKey: row.idempotency_key,
  payload: row.payload === null ? null : payloadOf({ ...row, payload: row.payload }),
});

export interface DayAlert {
  raisedAt: string;
  payload: AlertPayload;
}

export class DeliveryOutbox {
  constructor(private readonly engine: SqlEngine) {}

  get engineKind(): SqlEngine['kind'] {
    return this.engine.kind;
  }

  async get(key: string): Promise<OutboxDelivery | undefined> {
    const [row] = await this.engine.query<Row>(`${SELECT} WHERE d.key = $1`, [key]);
    return row ? of(row) : undefined;
  }

  /**
   * Takes up to `limit` pending deliveries that are due, oldest first, for one try each: the
   * try is counted (`attempts`, so the returned row carries this try's number) and the next look
   * put off for `leaseMs`, by the database's clock, so the replicas' own clocks do not matter.
   * Rows another worker is taking at the same moment are skipped (`SKIP LOCKED`), not waited
   * for, and a row taken is not due again until its lease lapses: a worker that died mid-send
   * leaves it to be tried again then, by any replica.
   */
  async claimDue(limit: number, leaseMs: number): Promise<OutboxDelivery[]> {
    const rows = await this.engine.query<Row>(
      `WITH due AS (
         SELECT key FROM alert_delivery
          WHERE state = 'pending' AND next_attempt_at <= now()
          ORDER BY next_attempt_at, key LIMIT $1
          FOR UPDATE SKIP LOCKED
       ), taken AS (
         UPDATE alert_delivery d
            SET attempts = d.attempts + 1,
                next_attempt_at = now() + $2::double precision * interval '1 millisecond'
           FROM due WHERE d.key = due.key
         RETURNING d.*
       )
       ${SELECT.replace('alert_delivery d', 'taken d')} ORDER BY d.created_at, d.key`,
      [limit, leaseMs],
    );
    return rows.map(of);
  }

  /**
   * Puts a failed try's delivery off for `waitMs`, by the database's clock, unless the try is
   * no longer the row's latest (its lease lapsed and another worker has taken it since).
   */
  async postpone(key: string, attempt: number, waitMs: number, failure: string): Promise<void> {
    await this.engine.query(
      `UPDATE alert_delivery
          SET next_attempt_at = now() + $3::double precision * interval '1 millisecond',
              last_error = $4
        WHERE key = $1 AND state = 'pending' AND attempts = $2`,
      [key, attempt, waitMs, failure],
    );
  }

  /**
   * Hands back a delivery taken but not tried (its worker stopping): due at once, the try not
   * counted, unless another worker has taken it since.
   */
  async release(key: string, attempt: number): Promise<void> {
    await this.engine.query(
      `UPDATE alert_delivery SET next_attempt_at = now(), attempts = attempts - 1
        WHERE key = $1 AND state = 'pending' AND attempts = $2`,
      [key, attempt],
    );
  }

  /**
   * Settles a pending delivery; false when it was settled already (by another worker). `sent`
   * settles whichever try sent it; `failed` only the row's latest try (a try whose lease lapsed
   * does not end a later one).
   */
  async settle(
    key: string,
    attempt: number,
    state: 'sent' | 'failed',
    at: Date,
    failure?: string,
  ): Promise<boolean> {
    const rows = await this.engine.query(
      `UPDATE alert_delivery SET state = $3, finished_at = $4, last_error = $5
        WHERE key = $1 AND state = 'pending' AND ($3 = 'sent' OR attempts = $2) RETURNING key`,
      [key, attempt, state, at.toISOString(), failure ?? null],
    );
    return rows.length > 0;
  }

  /** Writes deliveries (digests) once by key; returns the keys this call wrote. */
  async add(deliveries: readonly PlannedDelivery[], at: Date): Promise<string[]> {
    if (deliveries.length === 0) return [];
    const rows = await this.engine.query<{ key: string }>(
      `INSERT INTO alert_delivery (key, alert_id, rule_id, channel, recipient, created_at,
         next_attempt_at)
       SELECT d.key, d.alert_id, d.rule_id, d.channel, d.recipient, $6::timestamptz, now()
         FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[])
              AS d(key, alert_id, rule_id, channel, recipient)
       ON CONFLICT (key) DO NOTHING RETURNING key`,
      [
        deliveries.map((d) => d.key),
        deliveries.map((d) => d.alertId),
        deliveries.map((d) => d.ruleId),
        deliveries.map((d) => d.channel),
        deliveries.map((d) => d.recipient),
        at.toISOString(),
      ],
    );
    return rows.map((r) => r.key);
  }

  /** Pending deliveries by channel (the backlog metric): how many, and the oldest's writing. */
  async backlog(): Promise<{ channel: DeliveryChannel; pending: number; oldestAt: Date }[]> {
    const rows = await this.engine.query<{
      channel: DeliveryChannel;
      pending: number;
      oldest: Date | string;
    }>(
      `SELECT channel, count(*)::int AS pending, min(created_at) AS oldest
         FROM alert_delivery WHERE state = 'pending' GROUP BY channel ORDER BY channel`,
    );
    return rows.map((r) => ({
      channel: r.channel,
      pending: Number(r.pending),
      oldestAt: new Date(r.oldest),
    }));
  }

  /** Enabled digest rules: id, name and owner (null: the team's). */
  async digestRules(): Promise<{ id: string; name: string; ownerEmail: string | null }[]> {
    const rows = await this.engine.query<{ id: string; name: string; owner_email: string | null }>(
      'SELECT id, name, owner_email FROM alert_rule WHERE enabled AND digest AND channel_email ORDER BY id',
    );
    return rows.map((r) => ({ id: r.id, name: r.name, ownerEmail: r.owner_email }));
  }

  /** Who had emails folded (past their hourly cap) in [from, to). */
  async foldedRecipients(from: Date, to: Date): Promise<string[]> {
    const rows = await this.engine.query<{ recipient: string }>(
      `SELECT DISTINCT recipient FROM alert_delivery
        WHERE state = 'folded' AND channel = 'email' AND created_at >= $1 AND created_at < $2
        ORDER BY recipient`,
      [from.toISOString(), to.toISOString()],
    );
    return rows.map((r) => r.recipient);
  }

  /** The alerts whose email to `recipient` was folded in [from, to), oldest first. */
  async foldedAlerts(recipient: string, from: Date, to: Date): Promise<DayAlert[]> {
    const rows = await this.engine.query<{
      raised_at: Date | string;
      payload: AlertPayload | string;
      rule_exists: boolean;
      rule_owner: string | null;
    }>(
      `SELECT a.raised_at, a.payload, ${RULE} FROM alert_delivery d JOIN alert a ON a.id = d.alert_id
         LEFT JOIN alert_rule r ON r.id = a.rule_id
        WHERE d.recipient = $1 AND d.channel = 'email' AND d.state = 'folded'
          AND d.created_at >= $2 AND d.created_at < $3
        ORDER BY a.raised_at, a.id`,
      [recipient, from.toISOString(), to.toISOString()],
    );
    return rows.map(dayAlert);
  }

  /** The alerts a rule raised in [from, to), oldest first. */
  async alertsOf(ruleId: string, from: Date, to: Date): Promise<DayAlert[]> {
    const rows = await this.engine.query<{
      raised_at: Date | string;
      payload: AlertPayload | string;
      rule_exists: boolean;
      rule_owner: string | null;
    }>(
      `SELECT a.raised_at, a.payload, ${RULE} FROM alert a LEFT JOIN alert_rule r ON r.id = a.rule_id
        WHERE a.rule_id = $1 AND a.raised_at >= $2 AND a.raised_at < $3 ORDER BY a.raised_at, a.id`,
      [ruleId, from.toISOString(), to.toISOString()],
    );
    return rows.map(dayAlert);
  }
}

const dayAlert = (r: {
  raised_at: Date | string;
  payload: AlertPayload | string;
  rule_exists: boolean;
  rule_owner: string | null;
}): DayAlert => ({ raisedAt: new Date(r.raised_at).toISOString(), payload: payloadOf(r) });
