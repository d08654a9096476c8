// The close policy in the transaction index's SQL store (PostgreSQL or the embedded engine;
// migrations `close-policy`, `close-policy-version`): one row, absent until an admin first sets
// it, the default (version 0) then. A change names the version it was made on; it is checked and
// written in one transaction under a transaction-scoped advisory lock (there may be no row to
// lock yet), so of two changes made on one version exactly one is saved, and the other is
// refused with the policy as it is.
import type { AccountingCategory } from '@card-console/shared/api/accounting-categories';
import type { ClosePolicy, ClosePolicyUpdate } from '@card-console/shared/api/close-policy';
import { RECEIPT_FROM_CENTS_DEFAULT } from '@card-console/shared/api/transaction-index';
import {
  type Audited,
  committed,
  type SqlEngine,
  type SqlQueryable,
} from '../../platform/sql/sql-engine';
import { categoriesIn } from '../notes';

/** The policy until an admin sets one: receipts from $75, no memo categories (as before). */
export const DEFAULT_CLOSE_POLICY: ClosePolicy = {
  receiptFromCents: RECEIPT_FROM_CENTS_DEFAULT,
  memoCategoryIds: [],
  version: 0,
};

/** The policy moved on since the version a change was made on; `current` is how it is now. */
export class ClosePolicyChangedError extends Error {
  constructor(readonly current: ClosePolicy) {
    super('close policy changed');
    this.name = 'ClosePolicyChangedError';
  }
}

/** Memo categories a change names that do not exist, or are archived (and not already named). */
export class MemoCategoryUnusableError extends Error {
  constructor(
    readonly missing: readonly string[],
    readonly archived: readonly { id: string; code: string; name: string }[],
  ) {
    super('memo category unusable');
    this.name = 'MemoCategoryUnusableError';
  }
}

interface PolicyRow {
  receipt_from_cents: string | null;
  memo_category_ids: string[];
  updated_by: string;
  updated_at: Date | string;
  version: number;
}

const COLUMNS =
  'receipt_from_cents::text AS receipt_from_cents, memo_category_ids, updated_by, updated_at, version';

const policyOf = (row: PolicyRow): ClosePolicy => ({
  receiptFromCents: row.receipt_from_cents === null ? null : Number(row.receipt_from_cents),
  memoCategoryIds: row.memo_category_ids,
  updatedBy: row.updated_by,
  updatedAt: new Date(row.updated_at).toISOString(),
  version: Number(row.version),
});

/** The same policy: the amount, and the memo categories in any order (the order means nothing). */
function samePolicy(policy: ClosePolicy, change: ClosePolicyUpdate): boolean {
  const ids = new Set(change.memoCategoryIds);
  return (
    policy.receiptFromCents === change.receiptFromCents &&
    policy.memoCategoryIds.length === ids.size &&
    policy.memoCategoryIds.every((id) => ids.has(id))
  );
}

async function policyIn(q: SqlQueryable): Promise<ClosePolicy> {
  const [row] = await q.query<PolicyRow>(`SELECT ${COLUMNS} FROM close_policy`);
  return row ? policyOf(row) : DEFAULT_CLOSE_POLICY;
}

export class ClosePolicyStore {
  constructor(private readonly engine: SqlEngine) {}

  /** A category of the chart (a refused change's audit record names the ones it found). */
  category(id: string): Promise<AccountingCategory | undefined> {
    return categoriesIn(this.engine).category(id);
  }

  /** The policy in force: the one an admin set, or the default. */
  get(): Promise<ClosePolicy> {
    return policyIn(this.engine);
  }

  /**
   * Sets the whole policy, when it is still at `change.version`: otherwise
   * `ClosePolicyChangedError` with the policy as it is, and nothing is saved. Each memo category
   * must exist and be current, unless the policy names it already (one archived since stays
   * until an admin takes it out); otherwise `MemoCategoryUnusableError` and nothing is saved.
   * A change to the policy in force saves nothing (no new version) and does not run `audited`.
   * The policy before and after, and whether it changed.
   */
  async update(
    change: ClosePolicyUpdate,
    actor: string,
    at: Date,
    audited?: Audited<{ before: ClosePolicy; after: ClosePolicy }>,
  ): Promise<{ before: ClosePolicy; after: ClosePolicy; changed: boolean }> {
    return this.engine.transaction(async (tx) => {
      await tx.query("SELECT count(pg_advisory_xact_lock(hashtextextended('close_policy', 0)))");
      const before = await policyIn(tx);
      if (before.version !== change.version) throw new ClosePolicyChangedError(before);
      if (samePolicy(before, change)) return { before, after: before, changed: false };
      const ids = [...new Set(change.memoCategoryIds)];
      const found = await tx.query<{ id: string; code: string; name: string; archived: boolean }>(
        'SELECT id, code, name, archived FROM accounting_category WHERE id = ANY($1::text[])',
        [ids],
      );
      const known = new Set(found.map((c) => c.id));
      const missing = ids.filter((id) => !known.has(id));
      const archived = found
        .filter((c) => c.archived && !before.memoCategoryIds.includes(c.id))
        .map(({ id, code, name }) => ({ id, code, name }));
      if (missing.length > 0 || archived.length > 0) {
        throw new MemoCategoryUnusableError(missing, archived);
      }
      // The version is checked again by the write itself: no row comes back unless it is still
      // the one read (the lock already makes it so; this keeps it so without one).
      const [row] = await tx.query<PolicyRow>(
        `INSERT INTO close_policy (id, receipt_from_cents, memo_category_ids, updated_by, updated_at, version)
         VALUES (true, $1, $2::text[], $3, $4, 1)
         ON CONFLICT (id) DO UPDATE SET receipt_from_cents = EXCLUDED.receipt_from_cents,
           memo_category_ids = EXCLUDED.memo_category_ids, updated_by = EXCLUDED.updated_by,
           updated_at = EXCLUDED.updated_at, version = close_policy.version + 1
         WHERE close_policy.version = $5
         RETURNING ${COLUMNS}`,
        [change.receiptFromCents, ids, actor, at.toISOString(), change.version],
      );
      if (!row) throw new ClosePolicyChangedError(await policyIn(tx));
      return committed(tx, { before, after: policyOf(row), changed: true }, audited);
    });
  }
}
