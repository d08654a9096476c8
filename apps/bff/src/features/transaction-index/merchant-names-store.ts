// The names admins give merchants, in the index's SQL store (PostgreSQL or the embedded engine;
// migration `merchant-names`). The index groups its card descriptors into merchants
// (`merchants.ts`: a group's key, such as `acme fuel`); a row makes a group go by another name,
// and so belong to the merchant of that name's key: a new name renames the merchant, another
// merchant's name makes the two one. A change runs under a transaction-scoped advisory lock, so
// two admins' changes are made one after the other, each seeing the groups the other moved.
import {
  type Audited,
  committed,
  type SqlEngine,
  type SqlQueryable,
} from '../../platform/sql/sql-engine';

/** A group of descriptors going by a name an admin gave. */
export interface MerchantNameRow {
  /** The group's own key (`merchantOf`'s). */
  merchantKey: string;
  name: string;
  /** The key of `name`: the merchant the group belongs to. */
  nameKey: string;
  updatedBy: string;
  updatedAt: string;
}

/** What a change did: the groups it named and their rows before (none: their own name). */
export interface MerchantNaming {
  groups: string[];
  before: MerchantNameRow[];
  after: MerchantNameRow[];
}

interface Row {
  merchant_key: string;
  name: string;
  name_key: string;
  updated_by: string;
  updated_at: Date | string;
}

const COLUMNS = 'merchant_key, name, name_key, updated_by, updated_at';

const rowOf = (r: Row): MerchantNameRow => ({
  merchantKey: r.merchant_key,
  name: r.name,
  nameKey: r.name_key,
  updatedBy: r.updated_by,
  updatedAt: new Date(r.updated_at).toISOString(),
});

const lock = (tx: SqlQueryable) =>
  tx.query("SELECT count(pg_advisory_xact_lock(hashtextextended('index_merchant_name', 0)))");

/** The groups going by merchant `key` now: those named to it, and its own unless named away. */
async function groupsOf(tx: SqlQueryable, key: string, ownGroup: boolean): Promise<string[]> {
  const named = await tx.query<{ merchant_key: string }>(
    'SELECT merchant_key FROM index_merchant_name WHERE name_key = $1 ORDER BY merchant_key',
    [key],
  );
  const groups = named.map((r) => r.merchant_key);
  if (ownGroup && !groups.includes(key)) {
    const [away] = await tx.query('SELECT 1 FROM index_merchant_name WHERE merchant_key = $1', [
      key,
    ]);
    if (!away) groups.push(key);
  }
  return groups.sort();
}

export class MerchantNamesStore {
  constructor(private readonly engine: SqlEngine) {}

  /** Every group an admin named, by its key. */
  async all(): Promise<MerchantNameRow[]> {
    const rows = await this.engine.query<Row>(
      `SELECT ${COLUMNS} FROM index_merchant_name ORDER BY merchant_key`,
    );
    return rows.map(rowOf);
  }

  /**
   * Every group going by merchant `key` (`ownGroup`: the index has a group of that key, which
   * goes by it unless named away) goes by `name` from now on. No group: nothing is changed and
   * `groups` is empty.
   */
  async name(
    key: string,
    ownGroup: boolean,
    to: { name: string; nameKey: string },
    actor: string,
    at: Date,
    audited?: Audited<MerchantNaming>,
  ): Promise<MerchantNaming> {
    return this.engine.transaction(async (tx) => {
      await lock(tx);
      const groups = await groupsOf(tx, key, ownGroup);
      if (groups.length === 0) return { groups, before: [], after: [] };
      const before = await tx.query<Row>(
        `SELECT ${COLUMNS} FROM index_merchant_name WHERE merchant_key = ANY($1::text[])
          ORDER BY merchant_key`,
        [groups],
      );
      const after = await tx.query<Row>(
        `INSERT INTO index_merchant_name (${COLUMNS})
         SELECT g, $2, $3, $4, $5 FROM unnest($1::text[]) AS g
         ON CONFLICT (merchant_key) DO UPDATE SET name = EXCLUDED.name,
           name_key = EXCLUDED.name_key, updated_by = EXCLUDED.updated_by,
           updated_at = EXCLUDED.updated_at
         RETURNING ${COLUMNS}`,
        [groups, to.name, to.nameKey, actor, at.toISOString()],
      );
      const result = {
        groups,
        before: before.map(rowOf),
        after: after.map(rowOf).sort((a, b) => (a.merchantKey < b.merchantKey ? -1 : 1)),
      };
      return committed(tx, result, audited);
    });
  }

  /**
   * Every group named to merchant `key` goes by its own name again (the names its descriptors
   * give). None: nothing is changed and `groups` is empty.
   */
  async unname(key: string, audited?: Audited<MerchantNaming>): Promise<MerchantNaming> {
    return this.engine.transaction(async (tx) => {
      await lock(tx);
      const before = await tx.query<Row>(
        `DELETE FROM index_merchant_name WHERE name_key = $1 RETURNING ${COLUMNS}`,
        [key],
      );
      const rows = before.map(rowOf).sort((a, b) => (a.merchantKey < b.merchantKey ? -1 : 1));
      const result = { groups: rows.map((r) => r.merchantKey), before: rows, after: [] };
      if (rows.length === 0) return result;
      return committed(tx, result, audited);
    });
  }
}
