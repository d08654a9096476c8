// A change to one of our own stores and its audit record commit together or not at all.
// Reuse it for any change that is audited: a People change, `pnpm users`, a notes change.
import type { AuditRecord } from '@card-console/shared/api/audit';
import type { Logger } from 'pino';
import { AppError } from '../../core/app-error';
import type { AuditStore, NewAuditRecord } from './audit-store';

/**
 * What a store calls inside a change's transaction, as its LAST step (after every write and
 * refusal, right before COMMIT), with the change's result and the transaction itself (reads the
 * record needs go through it: the embedded engine serves nothing else while it is open).
 * Throwing rolls the change back. A store without transactions calls it right before its one
 * atomic write.
 */
export type BeforeCommit<R, Tx = unknown> = (result: R, tx: Tx) => Promise<void>;

/**
 * The hook as `auditedChange` hands it to the store call: it takes whatever that store's hook
 * takes (so the change's result type is inferred from the call, not fixed before it).
 */
export type AnyBeforeCommit = <T>(result: T, tx?: unknown) => Promise<void>;

/** The trail could not take a change's record, so the change was not made (503). */
export class AuditUnavailableError extends AppError<'audit_unavailable'> {
  constructor(
    cause: unknown,
    detail = 'Nothing was changed: the audit trail could not record this change. Try again shortly.',
  ) {
    super(503, 'audit_unavailable', detail, { cause, retryAfterSeconds: 5 });
    this.name = 'AuditUnavailableError';
  }
}

/**
 * A change the trail could not record was rolled back: there is no refusal to record, and a
 * record of it would be refused the same way.
 */
export function rethrowUnrecorded(error: unknown): void {
  if (error instanceof AuditUnavailableError) throw error;
}

export interface AuditedChangeDeps {
  audit: AuditStore;
  /** Where a follow-up record that could not be written is reported. */
  logger: Pick<Logger, 'error'>;
}

/** Appends `record`; any failure becomes AuditUnavailableError (with `detail` when given). */
export async function appendOrRefuse(
  audit: AuditStore,
  record: NewAuditRecord,
  detail?: string,
): Promise<AuditRecord> {
  try {
    return await audit.append(record);
  } catch (error) {
    throw new AuditUnavailableError(error, detail);
  }
}

/** `appendOrRefuse` for several records the store takes in one go (`AuditStore.appendMany`). */
async function appendManyOrRefuse(
  appendMany: NonNullable<AuditStore['appendMany']>,
  records: readonly NewAuditRecord[],
): Promise<AuditRecord[]> {
  try {
    return await appendMany(records);
  } catch (error) {
    throw new AuditUnavailableError(error);
  }
}

/**
 * Runs `change` (a store call given the hook) so that `records(result, tx)` are appended inside
 * its transaction: an append that fails throws AuditUnavailableError out of the transaction,
 * which rolls the change back, and the person hears nothing changed.
 *
 * The window: the trail is another store (a file, another connection), so a record appended can
 * precede a COMMIT that then fails (the database lost mid-commit), or a store may find after
 * the hook that it did not make the change after all (`notCommitted`). Then a `failed` record
 * follows for the same request, naming the record it takes back (best effort: logged when even
 * that cannot be written).
 */
export async function auditedChange<R, Tx>(
  deps: AuditedChangeDeps,
  change: (beforeCommit: AnyBeforeCommit) => Promise<R>,
  records: (result: R, tx: Tx) => Promise<readonly NewAuditRecord[]> | readonly NewAuditRecord[],
  notCommitted?: (result: R) => boolean,
): Promise<R> {
  // Records appended by a transaction not yet known to have committed.
  let pending: AuditRecord[] = [];
  const takeBack = async (why: string) => {
    const appended = pending;
    pending = [];
    for (const record of appended) await followUp(deps, record, why);
  };
  let result: R;
  try {
    result = await change(async (value, tx) => {
      // The store hands back what its call returns (R) and its own transaction (Tx).
      // A store that ran its transaction again (a deadlock retried): the first one's records
      // were taken back with it.
      await takeBack('its transaction was run again');
      const all = await records(value as unknown as R, tx as Tx);
      const many = deps.audit.appendMany?.bind(deps.audit);
      if (all.length > 1 && many) {
        pending.push(...(await appendManyOrRefuse(many, all)));
      } else {
        for (const record of all) pending.push(await appendOrRefuse(deps.audit, record));
      }
    });
  } catch (error) {
    await takeBack('the change was rolled back');
    throw error;
  }
  if (notCommitted?.(result)) await takeBack('the store refused the change after it was recorded');
  pending = [];
  return result;
}

async function followUp(deps: AuditedChangeDeps, record: AuditRecord, why: string) {
  const { id, at: _at, before: _before, after: _after, reason: _reason, ...same } = record;
  try {
    await deps.audit.append({
      ...same,
      outcome: 'failed',
      detail: `not_saved: record ${id} was written, then ${why}`,
    });
  } catch (error) {
    deps.logger.error(
      { err: error, requestId: record.requestId, action: record.action, auditRecordId: id },
      'audit record of a change that was not saved could not be taken back',
    );
  }
}

/**
 * A change made where it cannot be rolled back (the card service) is recorded as `started`
 * before it is asked for (`appendOrRefuse`: a trail that cannot take that record stops it, and
 * nothing is asked), then its outcome with this. The outcome is best effort: the change stands
 * whatever the trail says, so a lost outcome is logged for the operator and its `started`
 * record (same request id) says what was asked. False when it was lost.
 */
export async function appendOutcome(
  deps: AuditedChangeDeps,
  record: NewAuditRecord,
): Promise<boolean> {
  try {
    await deps.audit.append(record);
    return true;
  } catch (error) {
    deps.logger.error(
      { err: error, requestId: record.requestId, action: record.action, outcome: record.outcome },
      'audit outcome of a card service change could not be written; its started record stands',
    );
    return false;
  }
}
