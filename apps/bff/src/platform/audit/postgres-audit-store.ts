// The audit trail in PostgreSQL (table `audit_record`, migrations/). Appends from every replica
// form one chain: each takes a transaction-scoped advisory lock, reads the newest record and
// inserts the next (id = its id + 1, so ids never have gaps, even after a failed insert). The
// time is the database's, read inside the lock and never before the previous record's: one
// clock for every replica, so newest-first by id is also newest-first by time, and a time
// range is a range of ids (which is how `list` serves it from the other filters' indexes).
import type { AuditFilter, AuditRecord } from '@card-console/shared/api/audit';
import { auditRecordSchema } from '@card-console/shared/api/audit';
import type pg from 'pg';
import { type Metrics, noMetrics, timedEngineCall } from '../metrics/metrics';
import {
  type AuditChainSource,
  type ChainedAuditRecord,
  GENESIS_HASH,
  sealRecord,
  withoutLink,
} from './audit-chain';
import { type AuditHead, type AuditHeadSource, EMPTY_HEAD } from './audit-head';
import type { AuditStore, NewAuditRecord } from './audit-store';
import { postgresFailure } from './postgres-errors';

/** Held by an append from reading the head until its commit; any role may take it. */
const APPEND_LOCK = 7_318_226_471_503_104n;

const columns = `id, at, actor, role, action, outcome, target, card_id, last4, sub_account_id,
  before_values, after_values, reason, detail, request_id, prev_hash, hash, method, attempted`;

/** One round trip: begin, wait for the lock, then read the head and the time. */
const beginAndReadHead = `BEGIN;
SELECT pg_advisory_xact_lock(${APPEND_LOCK});
SELECT h.id, h.hash,
  greatest(date_trunc('milliseconds', clock_timestamp()), h.at) AS at
FROM (SELECT 1) AS one
LEFT JOIN LATERAL (SELECT id, hash, at FROM audit_record ORDER BY id DESC LIMIT 1) AS h ON true`;

/** Each record's values: 19 of them; this many records a statement (under the 65,535 limit). */
const COLUMNS = 19;
const INSERT_ROWS = 1_000;
/** The INSERT of `n` records. */
const insertRows = (n: number) =>
  `INSERT INTO audit_record (${columns}) VALUES ${Array.from(
    { length: n },
    (_, row) =>
      `(${Array.from({ length: COLUMNS }, (_, col) => `$${row * COLUMNS + col + 1}`).join(', ')})`,
  ).join(', ')}`;

interface Row {
  id: string;
  at: Date;
  actor: string;
  role: string | null;
  action: string;
  outcome: string;
  target: string | null;
  card_id: string | null;
  last4: string | null;
  sub_account_id: string | null;
  before_values: unknown;
  after_values: unknown;
  reason: string | null;
  detail: string | null;
  request_id: string;
  prev_hash: string;
  hash: string;
  method: string | null;
  attempted: string | null;
}

/** The record as it was sealed: a NULL column was an absent field. */
function fromRow(row: Row): ChainedAuditRecord {
  const record: Record<string, unknown> = {
    id: row.id,
    at: row.at.toISOString(),
    actor: row.actor,
    role: row.role,
    action: row.action,
    outcome: row.outcome,
    method: row.method,
    attempted: row.attempted,
    target: row.target,
    cardId: row.card_id,
    last4: row.last4,
    subAccountId: row.sub_account_id,
    before: row.before_values,
    after: row.after_values,
    reason: row.reason,
    detail: row.detail,
    requestId: row.request_id,
    prevHash: row.prev_hash,
    hash: row.hash,
  };
  for (const key of Object.keys(record)) if (record[key] === null) delete record[key];
  return record as unknown as ChainedAuditRecord;
}

/** A `.catch` handler: a failed call becomes StoreUnavailableError when the server is at fault. */
const unavailable =
  (operation: string) =>
  (error: unknown): never => {
    throw postgresFailure(error, operation);
  };

/** The trail's rows in id order, this many per query, when walking the whole chain. */
const WALK_BATCH = 5_000;

export class PostgresAuditStore implements AuditStore, AuditChainSource, AuditHeadSource {
  constructor(
    private readonly pool: pg.Pool,
    /** Where each append's and list's duration goes (`bff_store_operation_duration_seconds`). */
    private readonly metrics: Metrics = noMetrics,
  ) {}

  async append(input: NewAuditRecord): Promise<AuditRecord> {
    const [written] = await this.appendMany([input]);
    return written as AuditRecord;
  }

  appendMany(inputs: readonly NewAuditRecord[]): Promise<AuditRecord[]> {
    return timedEngineCall(this.metrics, 'postgres', 'audit.append', () => this.insert(inputs));
  }

  list(options: { cursor?: string; limit: number; filter?: AuditFilter }) {
    return timedEngineCall(this.metrics, 'postgres', 'audit.list', () => this.select(options));
  }

  /** The records chained after the head in one transaction: one lock, a few statements. */
  private async insert(inputs: readonly NewAuditRecord[]): Promise<AuditRecord[]> {
    // The pool's connections carry an 'error' listener of their own (keepClientErrorsHandled):
    // the server ending this one between two of our queries fails the next, which we report.
    const client = await this.pool.connect().catch(unavailable('audit append'));
    try {
      const results = (await client
        .query(beginAndReadHead)
        .catch(unavailable('audit append'))) as unknown as pg.QueryResult[];
      const head = results.at(-1)?.rows[0] as { id: string | null; hash: string | null; at: Date };
      // Every record checked and chained before any is written: one refused, none is.
      let link = head.hash ?? GENESIS_HASH;
      const sealed = inputs.map((input, i) => {
        const record = auditRecordSchema.parse({
          ...input,
          id: String(Number(head.id ?? 0) + 1 + i),
          at: head.at.toISOString(),
        });
        const one = sealRecord(record, link);
        link = one.hash;
        return one;
      });
      for (let start = 0; start < sealed.length; start += INSERT_ROWS) {
        const rows = sealed.slice(start, start + INSERT_ROWS);
        await client
          .query(
            insertRows(rows.length),
            rows.flatMap((one) => [
              one.id,
              head.at,
              one.actor,
              one.role ?? null,
              one.action,
              one.outcome,
              one.target ?? null,
              one.cardId ?? null,
              one.last4 ?? null,
              one.subAccountId ?? null,
              one.before === undefined ? null : JSON.stringify(one.before),
              one.after === undefined ? null : JSON.stringify(one.after),
              one.reason ?? null,
              one.detail ?? null,
              one.requestId,
              one.prevHash,
              one.hash,
              one.method ?? null,
              one.attempted ?? null,
            ]),
          )
          .catch(unavailable('audit append'));
      }
      await client.query('COMMIT').catch(unavailable('audit append'));
      client.release();
      return sealed.map(withoutLink);
    } catch (error) {
      // Dropping the connection ends the transaction and frees the lock whatever state it is in.
      client.release(true);
      throw error;
    }
  }

  private async select(options: { cursor?: string; limit: number; filter?: AuditFilter }) {
    const { text, values } = listQuery(options);
    const { rows } = await this.pool.query<Row>(text, values).catch(unavailable('audit list'));
    const items = rows.slice(0, options.limit).map((row) => withoutLink(fromRow(row)));
    const last = items.at(-1);
    return rows.length > options.limit && last ? { items, nextCursor: last.id } : { items };
  }

  /** The newest record's id and hash (EMPTY_HEAD when there is none): one index lookup. */
  async head(): Promise<AuditHead> {
    const { rows } = await this.pool
      .query<{ id: string; hash: string }>(
        'SELECT id, hash FROM audit_record ORDER BY id DESC LIMIT 1',
      )
      .catch(unavailable('audit head'));
    return rows[0] ? { id: String(rows[0].id), hash: rows[0].hash } : EMPTY_HEAD;
  }

  /** Every record in id order, in batches (keyset), for the verifier. */
  async *records(): AsyncIterable<ChainedAuditRecord> {
    let after = '0';
    for (;;) {
      const { rows } = await this.pool
        .query<Row>(`SELECT ${columns} FROM audit_record WHERE id > $1 ORDER BY id LIMIT $2`, [
          after,
          WALK_BATCH,
        ])
        .catch(unavailable('audit walk'));
      for (const row of rows) yield fromRow(row);
      const last = rows.at(-1);
      if (!last || rows.length < WALK_BATCH) return;
      after = last.id;
    }
  }
}

/**
 * Newest first, one row more than a page (so we know whether there is a next one). Only the
 * given filters appear, so the planner sees plain equalities on indexed (column, id) pairs.
 * `from`/`to` become id bounds looked up in the (at, id) index: `at` never decreases with id.
 */
export function listQuery(options: { cursor?: string; limit: number; filter?: AuditFilter }) {
  const filter = options.filter ?? {};
  const values: unknown[] = [];
  const param = (value: unknown) => {
    values.push(value);
    return `$${values.length}`;
  };
  const where: string[] = [];
  if (filter.actor !== undefined) where.push(`actor = ${param(filter.actor)}`);
  if (filter.action !== undefined) where.push(`action = ${param(filter.action)}`);
  if (filter.attempted !== undefined) where.push(`attempted = ${param(filter.attempted)}`);
  if (filter.outcome !== undefined) where.push(`outcome = ${param(filter.outcome)}`);
  if (filter.cardId !== undefined) where.push(`card_id = ${param(filter.cardId)}`);
  if (filter.from !== undefined) {
    where.push(`id >= coalesce((SELECT id FROM audit_record WHERE at >= ${param(new Date(filter.from))}
      ORDER BY at, id LIMIT 1), 9223372036854775807)`);
  }
  if (filter.to !== undefined) {
    where.push(`id <= coalesce((SELECT id FROM audit_record WHERE at <= ${param(new Date(filter.to))}
      ORDER BY at DESC, id DESC LIMIT 1), 0)`);
  }
  if (options.cursor !== undefined) where.push(`id < ${param(options.cursor)}`);
  const text = `SELECT ${columns} FROM audit_record
${where.length ? `WHERE ${where.join('\n  AND ')}` : ''}
ORDER BY id DESC LIMIT ${param(options.limit + 1)}`;
  return { text, values };
}
