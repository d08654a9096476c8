// The close policy in the transaction index's SQL store (PostgreSQL or the embedded engine;
// migration `close-policy`): one row, absent until an admin first sets it, the default then.
// A change runs under a transaction-scoped advisory lock (there may be no row to lock yet), so
// two admins' changes are recorded one after the other, each with the policy it replaced.
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
};

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
}

const COLUMNS =
  'receipt_from_cents::text AS receipt_from_cents, memo_category_ids, updated_by, updated_at';

const policyOf = (row: PolicyRow): ClosePolicy => ({
  receiptFromCents: row.receipt_from_cents === null ? null : Number(row.receipt_from_cents),
  memoCategoryIds: row.memo_category_ids,
  updatedBy: row.updated_by,
  updatedAt: new Date(row.updated_at).toISOString(),
});

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
   * Sets the whole policy. Each memo category must exist and be current, unless the policy
   * names it already (one archived since stays until an admin takes it out); otherwise
   * `MemoCategoryUnusableError` and nothing is saved. The policy before and after.
   */
  async update(
    change: ClosePolicyUpdate,
    actor: string,
    at: Date,
    audited?: Audited<{ before: ClosePolicy; after: ClosePolicy }>,
  ): Promise<{ before: ClosePolicy; after: ClosePolicy }> {
    return this.engine.transaction(async (tx) => {
      await tx.query("SELECT count(pg_advisory_xact_lock(hashtextextended('close_policy', 0)))");
      const before = await policyIn(tx);
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
      const [row] = await tx.query<PolicyRow>(
        `INSERT INTO close_policy (id, receipt_from_cents, memo_category_ids, updated_by, updated_at)
         VALUES (true, $1, $2::text[], $3, $4)
         ON CONFLICT (id) DO UPDATE SET receipt_from_cents = EXCLUDED.receipt_from_cents,
           memo_category_ids = EXCLUDED.memo_category_ids, updated_by = EXCLUDED.updated_by,
           updated_at = EXCLUDED.updated_at
         RETURNING ${COLUMNS}`,
        [change.receiptFromCents, ids, actor, at.toISOString()],
      );
      return committed(tx, { before, after: policyOf(row as PolicyRow) }, audited);
    });
  }
}
