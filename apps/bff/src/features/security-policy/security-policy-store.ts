// The security policy in the BFF's SQL store (PostgreSQL or the embedded engine; migration
// `security-policy`): one row, absent until an admin first sets it, the policy then off. A change
// runs under a transaction-scoped advisory lock (there may be no row to lock yet), so two admins'
// changes are recorded one after the other, each with the policy it replaced.
import type { SecurityPolicy } from '@card-console/shared/api/security-policy';
import {
  type Audited,
  committed,
  type SqlEngine,
  type SqlQueryable,
} from '../../platform/sql/sql-engine';

/** The policy until an admin sets one: only admins must have a second factor (as before). */
export const DEFAULT_SECURITY_POLICY: SecurityPolicy = { requireSecondFactor: false };

interface PolicyRow {
  require_second_factor: boolean;
  updated_by: string;
  updated_at: Date | string;
}

const COLUMNS = 'require_second_factor, updated_by, updated_at';

const policyOf = (row: PolicyRow): SecurityPolicy => ({
  requireSecondFactor: row.require_second_factor,
  updatedBy: row.updated_by,
  updatedAt: new Date(row.updated_at).toISOString(),
});

async function policyIn(q: SqlQueryable): Promise<SecurityPolicy> {
  const [row] = await q.query<PolicyRow>(`SELECT ${COLUMNS} FROM security_policy`);
  return row ? policyOf(row) : DEFAULT_SECURITY_POLICY;
}

/** The store every engine runs (one contract suite: security-policy-store.contract.ts). */
export interface SecurityPolicyStore {
  /** The policy in force: the one an admin set, or the default (off). */
  get(): Promise<SecurityPolicy>;
  /**
   * Sets the policy, the change's records committed with it (`audited` runs in its transaction).
   * Setting it to what it is already changes nothing: `after` is `before`, and who set it and
   * when stay as they were (turning it on again does not move when it started).
   */
  update(
    requireSecondFactor: boolean,
    actor: string,
    at: Date,
    audited?: Audited<{ before: SecurityPolicy; after: SecurityPolicy }>,
  ): Promise<{ before: SecurityPolicy; after: SecurityPolicy }>;
}

export class SqlSecurityPolicyStore implements SecurityPolicyStore {
  constructor(private readonly engine: SqlEngine) {}

  get(): Promise<SecurityPolicy> {
    return policyIn(this.engine);
  }

  update(
    requireSecondFactor: boolean,
    actor: string,
    at: Date,
    audited?: Audited<{ before: SecurityPolicy; after: SecurityPolicy }>,
  ): Promise<{ before: SecurityPolicy; after: SecurityPolicy }> {
    return this.engine.transaction(async (tx) => {
      await tx.query("SELECT count(pg_advisory_xact_lock(hashtextextended('security_policy', 0)))");
      const before = await policyIn(tx);
      if (before.requireSecondFactor === requireSecondFactor && before.updatedAt !== undefined) {
        return committed(tx, { before, after: before }, audited);
      }
      const [row] = await tx.query<PolicyRow>(
        `INSERT INTO security_policy (id, require_second_factor, updated_by, updated_at)
         VALUES (true, $1, $2, $3)
         ON CONFLICT (id) DO UPDATE SET require_second_factor = EXCLUDED.require_second_factor,
           updated_by = EXCLUDED.updated_by, updated_at = EXCLUDED.updated_at
         RETURNING ${COLUMNS}`,
        [requireSecondFactor, actor, at.toISOString()],
      );
      return committed(tx, { before, after: policyOf(row as PolicyRow) }, audited);
    });
  }
}
