// Transaction notes and the chart of accounts, in the transaction index's SQL store (PostgreSQL
// or the embedded engine; migrations `annotations` and `notes-named-notes`). Every change is one
// transaction that compares the version the person saw with the row's, under the row's lock: two
// people saving from the same view never both succeed, and what the second one typed comes back
// to them with the notes as they now are.
import { createHash, randomBytes } from 'node:crypto';
import type {
  AccountingCategory,
  AccountingCategoryCreate,
  AccountingCategoryPatch,
  MerchantRule,
  MerchantRuleCreate,
} from '@card-console/shared/api/accounting-categories';
import { holdsSecurityCode } from '@card-console/shared/api/names';
import type { BulkSkipReason, Notes, Receipt } from '@card-console/shared/api/notes';
import { distinctTags, MAX_MEMO, MAX_TAGS } from '@card-console/shared/api/notes';
import { holdsCardNumber } from '../../platform/security/card-number-ids';
import {
  type Audited,
  committed,
  type SqlEngine,
  type SqlQueryable,
} from '../../platform/sql/sql-engine';

/** A change of a transaction's notes, already checked (`notesChangeSchema`). */
export interface NotesChange {
  version: number;
  memo?: string;
  categoryId?: string | null;
  tags?: string[];
  reviewed?: boolean;
}

/** Why a change was refused, with the notes as they are now. */
export class NotesConflictError extends Error {
  constructor(
    readonly reason: 'changed' | 'reviewed',
    readonly current: Notes,
  ) {
    super(reason === 'changed' ? 'notes changed meanwhile' : 'transaction is reviewed');
    this.name = 'NotesConflictError';
  }
}

/** The category a change names does not exist, or is archived (and not already the row's). */
export class CategoryUnusableError extends Error {
  constructor(readonly reason: 'missing' | 'archived') {
    super(`category ${reason}`);
    this.name = 'CategoryUnusableError';
  }
}

/** Another category has this code already (compared without regard to case). */
export class CategoryCodeTakenError extends Error {
  constructor(readonly code: string) {
    super('account code taken');
    this.name = 'CategoryCodeTakenError';
  }
}

/** The merchant has a rule already (compared without regard to case). */
export class MerchantRuleExistsError extends Error {
  constructor() {
    super('merchant has a rule');
    this.name = 'MerchantRuleExistsError';
  }
}

/** The transaction has as many receipts as it may. */
export class TooManyReceiptsError extends Error {
  constructor(readonly limit: number) {
    super('too many receipts');
    this.name = 'TooManyReceiptsError';
  }
}

/** The transaction has a receipt of these very bytes already (`existing`). */
export class DuplicateReceiptError extends Error {
  constructor(readonly existing: Receipt) {
    super('the same receipt again');
    this.name = 'DuplicateReceiptError';
  }
}

export class CategoryNotFoundError extends Error {
  constructor() {
    super('no such category');
    this.name = 'CategoryNotFoundError';
  }
}

interface NotesRow {
  transaction_id: string;
  memo: string;
  category_id: string | null;
  tags: string[];
  reviewed_by: string | null;
  reviewed_at: Date | string | null;
  version: number;
  updated_by: string;
  updated_at: Date | string;
}

interface CategoryRow {
  id: string;
  code: string;
  name: string;
  archived: boolean;
}

const iso = (value: Date | string) => new Date(value).toISOString();

/**
 * A new id: 128 random bits in base64url. Not a hex UUID: ids travel in paths, where a run of
 * 13 or more digits reads as a card number and is refused, and a hex UUID holds one about once
 * in a few hundred; in base64url's 64 letters such a run practically never happens.
 */
export const newId = () => randomBytes(16).toString('base64url');

/** The notes of a transaction nobody has written. */
export function emptyNotes(transactionId: string): Notes {
  return {
    transactionId,
    memo: '',
    categoryId: null,
    tags: [],
    review: { state: 'unreviewed' },
    version: 0,
  };
}

function fromRow(row: NotesRow): Notes {
  return {
    transactionId: row.transaction_id,
    memo: row.memo,
    categoryId: row.category_id,
    tags: row.tags,
    review:
      row.reviewed_by !== null && row.reviewed_at !== null
        ? { state: 'reviewed', by: row.reviewed_by, at: iso(row.reviewed_at) }
        : { state: 'unreviewed' },
    version: row.version,
    updatedBy: row.updated_by,
    updatedAt: iso(row.updated_at),
  };
}

const categoryOf = (row: CategoryRow): AccountingCategory => ({
  id: row.id,
  code: row.code,
  name: row.name,
  archived: row.archived,
});

/** SQLSTATE 23505: a unique index refused the row (both engines report it so). */
const isUniqueViolation = (error: unknown) =>
  typeof error === 'object' && error !== null && (error as { code?: unknown }).code === '23505';

interface RuleRow {
  id: string;
  merchant: string;
  category_id: string;
  created_by: string;
  created_at: Date | string;
}

const ruleOf = (row: RuleRow): MerchantRule => ({
  id: row.id,
  merchant: row.merchant,
  categoryId: row.category_id,
  createdBy: row.created_by,
  createdAt: iso(row.created_at),
});
const RULE_COLUMNS = 'id, merchant, category_id, created_by, created_at';

interface ReceiptRow {
  id: string;
  transaction_id: string;
  file_name: string;
  media_type: string;
  byte_size: number;
  sha256: string;
  uploaded_by: string;
  uploaded_at: Date | string;
}
const RECEIPT_COLUMNS =
  'id, transaction_id, file_name, media_type, byte_size, sha256, uploaded_by, uploaded_at';
const receiptOf = (row: ReceiptRow): Receipt => ({
  id: row.id,
  transactionId: row.transaction_id,
  fileName: row.file_name,
  mediaType: row.media_type,
  byteSize: row.byte_size,
  sha256: row.sha256,
  uploadedBy: row.uploaded_by,
  uploadedAt: iso(row.uploaded_at),
});

const NOTES_COLUMNS = `transaction_id, memo, category_id, tags, reviewed_by, reviewed_at,
  version, updated_by, updated_at`;
const CATEGORY_COLUMNS = 'id, code, name, archived';

/** What a chart import changed, each with the category before (absent when added) and after. */
export interface ChartImport {
  changed: { before?: AccountingCategory; after: AccountingCategory }[];
  unchanged: number;
}

/** What a change of many transactions' notes changed, and which it skipped. */
export interface ManyChanged {
  changed: { before: Notes; after: Notes }[];
  skipped: { transactionId: string; reason: Exclude<BulkSkipReason, 'not_found'> }[];
}

export class NotesStore {
  constructor(private readonly engine: SqlEngine) {}

  /** Every category, archived ones included, by code. */
  async categories(): Promise<AccountingCategory[]> {
    const rows = await this.engine.query<CategoryRow>(
      `SELECT ${CATEGORY_COLUMNS} FROM accounting_category ORDER BY lower(code) COLLATE "C", id`,
    );
    return rows.map(categoryOf);
  }

  category(id: string): Promise<AccountingCategory | undefined> {
    return categoryIn(this.engine, id);
  }

  async createCategory(
    input: AccountingCategoryCreate,
    at: Date,
    audited?: Audited<AccountingCategory>,
  ): Promise<AccountingCategory> {
    try {
      return await this.engine.transaction(async (tx) => {
        await lockChart(tx);
        const [row] = await tx.query<CategoryRow>(
          `INSERT INTO accounting_category (id, code, name, archived, created_at, updated_at)
           VALUES ($1, $2, $3, false, $4, $4) RETURNING ${CATEGORY_COLUMNS}`,
          [newId(), input.code, input.name, at.toISOString()],
        );
        return committed(tx, categoryOf(row as CategoryRow), audited);
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw new CategoryCodeTakenError(input.code);
      throw error;
    }
  }

  /**
   * A chart of accounts imported at once, in one transaction: a code not there yet is added, a
   * code there (whatever its case) takes the file's name; nothing is removed or archived. What
   * changed, each with the category before (absent when added) and after.
   */
  async importCategories(
    rows: readonly AccountingCategoryCreate[],
    at: Date,
    audited?: Audited<ChartImport>,
  ): Promise<ChartImport> {
    try {
      return await this.importing(rows, at, audited);
    } catch (error) {
      // Another admin added one of the file's codes meanwhile: nothing of the file was saved.
      if (isUniqueViolation(error)) throw new CategoryCodeTakenError('');
      throw error;
    }
  }

  private importing(
    rows: readonly AccountingCategoryCreate[],
    at: Date,
    audited: Audited<ChartImport>,
  ) {
    return this.engine.transaction(async (tx) => {
      await lockChart(tx);
      const existing = await tx.query<CategoryRow>(
        `SELECT ${CATEGORY_COLUMNS} FROM accounting_category FOR UPDATE`,
      );
      const byCode = new Map(existing.map((row) => [row.code.toLowerCase(), categoryOf(row)]));
      const changed: { before?: AccountingCategory; after: AccountingCategory }[] = [];
      let unchanged = 0;
      for (const row of rows) {
        const before = byCode.get(row.code.toLowerCase());
        if (before && before.name === row.name) {
          unchanged++;
          continue;
        }
        const [saved] = before
          ? await tx.query<CategoryRow>(
              `UPDATE accounting_category SET name = $2, updated_at = $3 WHERE id = $1
               RETURNING ${CATEGORY_COLUMNS}`,
              [before.id, row.name, at.toISOString()],
            )
          : await tx.query<CategoryRow>(
              `INSERT INTO accounting_category (id, code, name, archived, created_at, updated_at)
               VALUES ($1, $2, $3, false, $4, $4) RETURNING ${CATEGORY_COLUMNS}`,
              [newId(), row.code, row.name, at.toISOString()],
            );
        const after = categoryOf(saved as CategoryRow);
        byCode.set(after.code.toLowerCase(), after);
        changed.push(before ? { before, after } : { after });
      }
      return committed(tx, { changed, unchanged }, audited);
    });
  }

  /** Renames, recodes, archives or restores a category; the category before and after. */
  async updateCategory(
    id: string,
    patch: AccountingCategoryPatch,
    at: Date,
    audited?: Audited<{ before: AccountingCategory; after: AccountingCategory }>,
  ): Promise<{ before: AccountingCategory; after: AccountingCategory }> {
    try {
      return await this.engine.transaction(async (tx) => {
        await lockChart(tx);
        const [row] = await tx.query<CategoryRow>(
          `SELECT ${CATEGORY_COLUMNS} FROM accounting_category WHERE id = $1 FOR UPDATE`,
          [id],
        );
        if (!row) throw new CategoryNotFoundError();
        const before = categoryOf(row);
        // A patch that leaves every value as it is writes nothing (updated_at stays).
        const unchanged =
          (patch.code ?? before.code) === before.code &&
          (patch.name ?? before.name) === before.name &&
          (patch.archived ?? before.archived) === before.archived;
        if (unchanged) return committed(tx, { before, after: before }, audited);
        const [updated] = await tx.query<CategoryRow>(
          `UPDATE accounting_category SET code = $2, name = $3, archived = $4, updated_at = $5
           WHERE id = $1 RETURNING ${CATEGORY_COLUMNS}`,
          [
            id,
            patch.code ?? before.code,
            patch.name ?? before.name,
            patch.archived ?? before.archived,
            at.toISOString(),
          ],
        );
        return committed(tx, { before, after: categoryOf(updated as CategoryRow) }, audited);
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw new CategoryCodeTakenError(patch.code ?? '');
      throw error;
    }
  }

  /** Every merchant rule, by merchant. */
  async rules(): Promise<MerchantRule[]> {
    const rows = await this.engine.query<RuleRow>(
      `SELECT ${RULE_COLUMNS} FROM merchant_rule ORDER BY lower(merchant) COLLATE "C", id`,
    );
    return rows.map(ruleOf);
  }

  /** A rule for a merchant that has none, to a current category. */
  async createRule(
    input: MerchantRuleCreate,
    actor: string,
    at: Date,
    audited?: Audited<MerchantRule>,
  ): Promise<MerchantRule> {
    try {
      return await this.engine.transaction(async (tx) => {
        await usableCategory(tx, input.categoryId);
        const [row] = await tx.query<RuleRow>(
          `INSERT INTO merchant_rule (id, merchant, category_id, created_by, created_at)
           VALUES ($1, $2, $3, $4, $5) RETURNING ${RULE_COLUMNS}`,
          [newId(), input.merchant, input.categoryId, actor, at.toISOString()],
        );
        return committed(tx, ruleOf(row as RuleRow), audited);
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw new MerchantRuleExistsError();
      throw error;
    }
  }

  /** Removes a rule; the rule as it was, or undefined if there was none (nothing audited). */
  async deleteRule(id: string, audited?: Audited<MerchantRule>): Promise<MerchantRule | undefined> {
    return this.engine.transaction(async (tx) => {
      const [row] = await tx.query<RuleRow>(
        `DELETE FROM merchant_rule WHERE id = $1 RETURNING ${RULE_COLUMNS}`,
        [id],
      );
      return row && committed(tx, ruleOf(row), audited);
    });
  }

  /**
   * One change made to many transactions at once (a selection on the list, or every row a filter
   * gives): each as it is now, under its row's lock, in one transaction. A reviewed transaction
   * takes no change of its notes unless the change reopens it, and is not reviewed again; one
   * not reviewed is not reopened unless the change also edits it: those are skipped and named,
   * as are ones that would hold more than MAX_TAGS tags or a memo longer than a memo may be
   * (an appended memo goes on a line of its own). With `preview`, the same is worked out and
   * nothing is written. What changed, before and after, and which were skipped.
   */
  async changeMany(
    transactionIds: readonly string[],
    change: ManyChange,
    actor: string,
    at: Date,
    audited?: Audited<ManyChanged>,
    options: {
      preview?: boolean;
      /**
       * A change of every matching row: which of the rows the filter still gives, asked once
       * their notes are locked; the others are skipped (`no_longer_matching`).
       */
      stillMatching?: (q: SqlQueryable, ids: readonly string[]) => Promise<ReadonlySet<string>>;
    } = {},
  ): Promise<ManyChanged> {
    return this.engine.transaction(async (tx) => {
      if (change.categoryId) await usableCategory(tx, change.categoryId);
      const read = (ids: readonly string[]) =>
        tx.query<NotesRow>(
          `SELECT ${NOTES_COLUMNS} FROM transaction_notes
            WHERE transaction_id = ANY($1::text[]) ORDER BY transaction_id
            ${options.preview ? '' : 'FOR UPDATE'}`,
          [ids],
        );
      const current = new Map(
        (await read(transactionIds)).map((row) => [row.transaction_id, fromRow(row)]),
      );
      if (!options.preview) {
        // Those with no notes row yet: no receipt can pass a first review (`lockReceipts`).
        const missing = transactionIds.filter((id) => !current.has(id));
        await lockReceipts(tx, missing);
        // A change that held these locks before this one may have written their first notes
        // meanwhile: read again (locked now), so this change builds on them rather than
        // failing on the row it did not see.
        if (missing.length > 0) {
          for (const row of await read(missing)) current.set(row.transaction_id, fromRow(row));
        }
      }
      const still = options.stillMatching && (await options.stillMatching(tx, transactionIds));
      const changes: { before: Notes; change: NotesChange }[] = [];
      const skipped: ManyChanged['skipped'] = [];
      for (const id of new Set(transactionIds)) {
        if (still && !still.has(id)) {
          skipped.push({ transactionId: id, reason: 'no_longer_matching' });
          continue;
        }
        const before = current.get(id) ?? emptyNotes(id);
        const outcome = manyChangeOf(before, change);
        if ('skip' in outcome) skipped.push({ transactionId: id, reason: outcome.skip });
        else changes.push({ before, change: outcome.change });
      }
      if (options.preview) {
        return { changed: changes.map(({ before }) => ({ before, after: before })), skipped };
      }
      const changed = await saveManyNotes(tx, changes, actor, at);
      return committed(tx, { changed, skipped }, audited);
    });
  }

  /** A transaction's receipts, oldest first. */
  async receipts(transactionId: string): Promise<Receipt[]> {
    const rows = await this.engine.query<ReceiptRow>(
      `SELECT ${RECEIPT_COLUMNS} FROM transaction_receipt WHERE transaction_id = $1
        ORDER BY uploaded_at, id`,
      [transactionId],
    );
    return rows.map(receiptOf);
  }

  /** One receipt of a transaction with its bytes; undefined if that transaction has no such one. */
  async receiptFile(
    transactionId: string,
    receiptId: string,
  ): Promise<(Receipt & { content: Buffer }) | undefined> {
    // The bytes travel as base64 text, both ways: the embedded engine's driver turns a bytea
    // into text and back a byte at a time in JavaScript (a 10 MB receipt took seconds), where
    // Buffer's base64 and the engine's own decode() are native code.
    const [row] = await this.engine.query<ReceiptRow & { content: string }>(
      `SELECT ${RECEIPT_COLUMNS}, encode(content, 'base64') AS content FROM transaction_receipt
        WHERE id = $1 AND transaction_id = $2`,
      [receiptId, transactionId],
    );
    return row && { ...receiptOf(row), content: Buffer.from(row.content, 'base64') };
  }

  /** The receipts of these transactions, without their bytes, by transaction then upload. */
  async receiptsOf(transactionIds: readonly string[]): Promise<Receipt[]> {
    if (transactionIds.length === 0) return [];
    const rows = await this.engine.query<ReceiptRow>(
      `SELECT ${RECEIPT_COLUMNS} FROM transaction_receipt
        WHERE transaction_id = ANY($1::text[]) ORDER BY transaction_id, uploaded_at, id`,
      [transactionIds],
    );
    return rows.map(receiptOf);
  }

  /**
   * The notes of a page of transactions and how many receipts each has, in one statement and
   * one JSON value (the driver decodes one field, not nine per row). A transaction with no
   * notes, or no receipt, is left out of that map.
   */
  async notesOf(
    transactionIds: readonly string[],
  ): Promise<{ notes: Map<string, Notes>; receipts: Map<string, number> }> {
    if (transactionIds.length === 0) return { notes: new Map(), receipts: new Map() };
    const [row] = await this.engine.query<{
      notes: NotesRow[];
      receipts: Record<string, number>;
    }>(
      `SELECT
         (SELECT coalesce(json_agg(a), '[]') FROM (
            SELECT ${NOTES_COLUMNS} FROM transaction_notes
             WHERE transaction_id = ANY($1::text[])) a) AS notes,
         (SELECT coalesce(json_object_agg(transaction_id, n), '{}') FROM (
            SELECT transaction_id, count(*)::int AS n FROM transaction_receipt
             WHERE transaction_id = ANY($1::text[]) GROUP BY transaction_id) r) AS receipts`,
      [transactionIds],
    );
    return {
      notes: new Map((row?.notes ?? []).map((note) => [note.transaction_id, fromRow(note)])),
      receipts: new Map(Object.entries(row?.receipts ?? {})),
    };
  }

  /**
   * Adds a receipt to a transaction that is not reviewed and has fewer than `limit`, under the
   * receipts' lock and the notes row's (`lockedNotes`): two uploads at once cannot pass the
   * limit and a review cannot slip between the check and the write. The notes themselves, and
   * their version, stay as they are (returned as such): a receipt is not an edit of the memo,
   * category or tags, so it never makes someone's open notes stale (decision 0111, "Receipts and
   * the notes' version").
   */
  async addReceipt(
    transactionId: string,
    file: { fileName: string; mediaType: string; content: Buffer },
    limit: number,
    actor: string,
    at: Date,
    audited?: Audited<{ receipt: Receipt; notes: Notes }>,
  ): Promise<{ receipt: Receipt; notes: Notes }> {
    return this.engine.transaction(async (tx) =>
      committed(tx, await addReceiptIn(tx, transactionId, file, limit, actor, at), audited),
    );
  }

  /**
   * Removes a receipt of a transaction that is not reviewed, under the same locks as adding one;
   * the notes' version stays. Undefined if it has no such one. Who removed it, and when, are
   * the audit trail's to keep (a removed receipt has no row to keep them in).
   */
  async removeReceipt(
    transactionId: string,
    receiptId: string,
    _actor: string,
    _at: Date,
    audited?: Audited<Receipt>,
  ): Promise<Receipt | undefined> {
    return this.engine.transaction(async (tx) => {
      const notes = await lockedNotes(tx, transactionId);
      if (notes.review.state === 'reviewed') {
        throw new NotesConflictError('reviewed', notes);
      }
      const [row] = await tx.query<ReceiptRow>(
        `DELETE FROM transaction_receipt WHERE id = $1 AND transaction_id = $2
         RETURNING ${RECEIPT_COLUMNS}`,
        [receiptId, transactionId],
      );
      return row && committed(tx, receiptOf(row), audited);
    });
  }

  /** A transaction's notes (version 0 when it has none). */
  async get(transactionId: string): Promise<Notes> {
    const [row] = await this.engine.query<NotesRow>(
      `SELECT ${NOTES_COLUMNS} FROM transaction_notes WHERE transaction_id = $1`,
      [transactionId],
    );
    return row ? fromRow(row) : emptyNotes(transactionId);
  }

  /**
   * Applies `change` if the notes are still at `change.version` and the change may be made
   * (a reviewed transaction takes a memo, category or tags only in a change that reopens it);
   * otherwise throws `NotesConflictError` with the notes as they are, and saves nothing.
   */
  async change(
    transactionId: string,
    change: NotesChange,
    actor: string,
    at: Date,
    audited?: Audited<{ before: Notes; after: Notes }>,
  ): Promise<{ before: Notes; after: Notes }> {
    return this.engine.transaction(async (tx) => {
      const [row] = await tx.query<NotesRow>(
        `SELECT ${NOTES_COLUMNS} FROM transaction_notes
         WHERE transaction_id = $1 FOR UPDATE`,
        [transactionId],
      );
      if (!row) await lockReceipts(tx, [transactionId]);
      const before = row ? fromRow(row) : emptyNotes(transactionId);
      if (before.version !== change.version) throw new NotesConflictError('changed', before);
      const editsNotes =
        change.memo !== undefined || change.categoryId !== undefined || change.tags !== undefined;
      if (before.review.state === 'reviewed' && editsNotes && change.reviewed !== false) {
        throw new NotesConflictError('reviewed', before);
      }
      // A change that leaves every value as it is writes nothing: no new version, no record.
      const after = changesNothing(before, change)
        ? before
        : await saveNotes(tx, before, change, actor, at);
      return committed(tx, { before, after }, audited);
    });
  }
}

/** Whether `change` leaves each of the notes' values as it is (a Save of what was there). */
function changesNothing(before: Notes, change: NotesChange): boolean {
  const tags = change.tags === undefined ? before.tags : distinctTags(change.tags);
  return (
    (change.memo === undefined || change.memo === before.memo) &&
    (change.categoryId === undefined || change.categoryId === before.categoryId) &&
    tags.length === before.tags.length &&
    tags.every((tag, i) => tag === before.tags[i]) &&
    (change.reviewed === undefined || change.reviewed === (before.review.state === 'reviewed'))
  );
}

/** A change of many transactions (`NotesStore.changeMany`). */
export interface ManyChange {
  categoryId?: string | null;
  addTags?: readonly string[];
  memo?: { text: string; mode: 'append' | 'replace' };
  reviewed?: boolean;
}

/** What a change of many makes of one transaction's notes, or why it leaves them. */
function manyChangeOf(
  before: Notes,
  change: ManyChange,
): { change: NotesChange } | { skip: ManyChanged['skipped'][number]['reason'] } {
  const reviewed = before.review.state === 'reviewed';
  const edits =
    change.categoryId !== undefined || change.addTags !== undefined || change.memo !== undefined;
  if (reviewed && change.reviewed !== false && (edits || change.reviewed === true)) {
    return { skip: 'reviewed' };
  }
  if (!reviewed && change.reviewed === false && !edits) return { skip: 'not_reviewed' };
  const tags = change.addTags ? distinctTags([...before.tags, ...change.addTags]) : undefined;
  if (tags && tags.length > MAX_TAGS) return { skip: 'too_many_tags' };
  const memo =
    change.memo === undefined
      ? undefined
      : change.memo.mode === 'replace' || before.memo === ''
        ? change.memo.text
        : `${before.memo}\n${change.memo.text}`;
  if (memo !== undefined && memo.length > MAX_MEMO) return { skip: 'memo_too_long' };
  // Each text was checked alone; a line break joins digit groups, so the two may read as one.
  if (memo !== undefined && memo !== change.memo?.text && holdsCardNumber(memo)) {
    return { skip: 'card_number' };
  }
  if (memo !== undefined && memo !== change.memo?.text && holdsSecurityCode(memo)) {
    return { skip: 'security_code' };
  }
  return {
    change: {
      version: before.version,
      ...(change.categoryId === undefined ? {} : { categoryId: change.categoryId }),
      ...(tags ? { tags } : {}),
      ...(memo === undefined ? {} : { memo }),
      ...(change.reviewed === undefined ? {} : { reviewed: change.reviewed }),
    },
  };
}

/** The row `change` makes of `before`, as the columns of `NOTES_COLUMNS` in their order. */
function savedValues(before: Notes, change: NotesChange, actor: string, at: Date) {
  const reviewed =
    change.reviewed === undefined
      ? before.review.state === 'reviewed'
        ? { by: before.review.by, at: before.review.at }
        : null
      : change.reviewed
        ? before.review.state === 'reviewed'
          ? { by: before.review.by, at: before.review.at }
          : { by: actor, at: at.toISOString() }
        : null;
  return [
    before.transactionId,
    change.memo ?? before.memo,
    change.categoryId === undefined ? before.categoryId : change.categoryId,
    change.tags === undefined ? before.tags : distinctTags(change.tags),
    reviewed?.by ?? null,
    reviewed?.at ?? null,
    before.version + 1,
    actor,
    at.toISOString(),
  ] as const;
}

/**
 * `saveNotes` for many rows at once (a change of many, its categories checked by the caller):
 * one INSERT of the rows that have no notes yet and one UPDATE of the others, from one JSON
 * value each, rather than two statements a row. A first change another transaction beat to
 * its row is a conflict, as in `saveNotes`.
 */
async function saveManyNotes(
  tx: SqlQueryable,
  changes: readonly { before: Notes; change: NotesChange }[],
  actor: string,
  at: Date,
): Promise<{ before: Notes; after: Notes }[]> {
  const rowsOf = (list: typeof changes) =>
    JSON.stringify(
      list.map(({ before, change }) => {
        const v = savedValues(before, change, actor, at);
        return {
          transaction_id: v[0],
          memo: v[1],
          category_id: v[2],
          tags: v[3],
          reviewed_by: v[4],
          reviewed_at: v[5],
          version: v[6],
          updated_by: v[7],
          updated_at: v[8],
        };
      }),
    );
  const record = `json_to_recordset($1::json) AS v(transaction_id text, memo text,
    category_id text, tags text[], reviewed_by text, reviewed_at timestamptz, version integer,
    updated_by text, updated_at timestamptz)`;
  const fresh = changes.filter((c) => c.before.version === 0);
  const existing = changes.filter((c) => c.before.version > 0);
  const saved: NotesRow[] = [];
  if (existing.length > 0) {
    saved.push(
      ...(await tx.query<NotesRow>(
        `UPDATE transaction_notes t SET memo = v.memo, category_id = v.category_id,
           tags = v.tags, reviewed_by = v.reviewed_by, reviewed_at = v.reviewed_at,
           version = v.version, updated_by = v.updated_by, updated_at = v.updated_at
         FROM ${record} WHERE t.transaction_id = v.transaction_id
         RETURNING ${NOTES_COLUMNS.split(',')
           .map((c) => `t.${c.trim()}`)
           .join(', ')}`,
        [rowsOf(existing)],
      )),
    );
  }
  if (fresh.length > 0) {
    // Version 0 has no row: a first change another transaction made meanwhile wins the row.
    saved.push(
      ...(await tx.query<NotesRow>(
        `INSERT INTO transaction_notes (${NOTES_COLUMNS})
         SELECT ${NOTES_COLUMNS} FROM ${record}
         ON CONFLICT (transaction_id) DO NOTHING RETURNING ${NOTES_COLUMNS}`,
        [rowsOf(fresh)],
      )),
    );
  }
  const after = new Map(saved.map((row) => [row.transaction_id, fromRow(row)]));
  const lost = changes.find(({ before }) => !after.has(before.transactionId));
  if (lost) {
    const [now] = await tx.query<NotesRow>(
      `SELECT ${NOTES_COLUMNS} FROM transaction_notes WHERE transaction_id = $1`,
      [lost.before.transactionId],
    );
    throw new NotesConflictError('changed', now ? fromRow(now) : lost.before);
  }
  return changes.map(({ before }) => ({
    before,
    after: after.get(before.transactionId) as Notes,
  }));
}

/**
 * Writes `change` over `before` (the notes as read under the row's lock, version 0: no row)
 * as the next version; a first change another transaction beat to the row is a conflict.
 */
async function saveNotes(
  tx: SqlQueryable,
  before: Notes,
  change: NotesChange,
  actor: string,
  at: Date,
): Promise<Notes> {
  const categoryId = change.categoryId === undefined ? before.categoryId : change.categoryId;
  if (categoryId !== null && categoryId !== before.categoryId) {
    await usableCategory(tx, categoryId);
  }
  const values = [...savedValues(before, change, actor, at)];
  // Version 0 has no row: two first changes both try to insert it, and only one can.
  const [saved] =
    before.version > 0
      ? await tx.query<NotesRow>(
          `UPDATE transaction_notes SET memo = $2, category_id = $3, tags = $4::text[],
             reviewed_by = $5, reviewed_at = $6, version = $7, updated_by = $8, updated_at = $9
           WHERE transaction_id = $1 RETURNING ${NOTES_COLUMNS}`,
          values,
        )
      : await tx.query<NotesRow>(
          `INSERT INTO transaction_notes (${NOTES_COLUMNS})
           VALUES ($1, $2, $3, $4::text[], $5, $6, $7, $8, $9)
           ON CONFLICT (transaction_id) DO NOTHING RETURNING ${NOTES_COLUMNS}`,
          values,
        );
  if (!saved) {
    // Read in this transaction: a new statement sees the row the other change committed.
    const [now] = await tx.query<NotesRow>(
      `SELECT ${NOTES_COLUMNS} FROM transaction_notes WHERE transaction_id = $1`,
      [before.transactionId],
    );
    throw new NotesConflictError('changed', now ? fromRow(now) : before);
  }
  return fromRow(saved);
}

/**
 * `NotesStore.addReceipt`'s change in a transaction the caller holds (the receipt inbox's
 * attach moves a file from the inbox in the same transaction): the same locks and checks.
 */
export async function addReceiptIn(
  tx: SqlQueryable,
  transactionId: string,
  file: { fileName: string; mediaType: string; content: Buffer },
  limit: number,
  actor: string,
  at: Date,
): Promise<{ receipt: Receipt; notes: Notes }> {
  const before = await lockedNotes(tx, transactionId);
  if (before.review.state === 'reviewed') {
    throw new NotesConflictError('reviewed', before);
  }
  const [count] = await tx.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM transaction_receipt WHERE transaction_id = $1',
    [transactionId],
  );
  const sha256 = createHash('sha256').update(file.content).digest('hex');
  // The same bytes twice (a file uploaded again, a receipt mailed after it was uploaded) would
  // be two receipts of one purchase: refused, naming the one there (under the lock, so two at
  // once keep one).
  const [same] = await tx.query<ReceiptRow>(
    `SELECT ${RECEIPT_COLUMNS} FROM transaction_receipt
      WHERE transaction_id = $1 AND sha256 = $2 ORDER BY uploaded_at LIMIT 1`,
    [transactionId, sha256],
  );
  if (same) throw new DuplicateReceiptError(receiptOf(same));
  if ((count?.n ?? 0) >= limit) throw new TooManyReceiptsError(limit);
  const [row] = await tx.query<ReceiptRow>(
    `INSERT INTO transaction_receipt
       (id, transaction_id, file_name, media_type, byte_size, sha256, content, uploaded_by, uploaded_at)
     VALUES ($1, $2, $3, $4, $5, $6, decode($7, 'base64'), $8, $9) RETURNING ${RECEIPT_COLUMNS}`,
    [
      newId(),
      transactionId,
      file.fileName,
      file.mediaType,
      file.content.length,
      sha256,
      file.content.toString('base64'),
      actor,
      at.toISOString(),
    ],
  );
  return { receipt: receiptOf(row as ReceiptRow), notes: before };
}

/**
 * A transaction's notes, its receipts' changes serialised: a transaction-scoped advisory lock
 * on its id (a transaction without notes has no row to lock yet), then the row's own lock.
 */
async function lockedNotes(tx: SqlQueryable, transactionId: string): Promise<Notes> {
  await lockReceipts(tx, [transactionId]);
  const [row] = await tx.query<NotesRow>(
    `SELECT ${NOTES_COLUMNS} FROM transaction_notes WHERE transaction_id = $1 FOR UPDATE`,
    [transactionId],
  );
  return row ? fromRow(row) : emptyNotes(transactionId);
}

/**
 * The receipts' lock of these transactions, held until the transaction ends. A receipt's change
 * takes it before the notes row's lock; a change of notes that have no row yet takes it after
 * finding none, so a first review and a first receipt cannot pass each other: whichever comes
 * second sees the first (a receipt does not write the notes, so the row cannot serve). Taken in
 * the keys' order, so two changes of many cannot each hold one the other waits for.
 */
async function lockReceipts(tx: SqlQueryable, transactionIds: readonly string[]): Promise<void> {
  if (transactionIds.length === 0) return;
  await tx.query(
    `SELECT count(pg_advisory_xact_lock(key)) FROM (
       SELECT DISTINCT hashtextextended('receipts:' || id, 0) AS key
         FROM unnest($1::text[]) AS id ORDER BY key) keys`,
    [transactionIds],
  );
}

/**
 * The chart of accounts' lock, held until the transaction ends: an add, a change and an import
 * take it first, so one that comes second reads what the first committed. Row locks alone let
 * two imports (or an import and an add) each insert a code the other was inserting, and the
 * second failed on the unique index: two replicas at once, a review found.
 */
async function lockChart(tx: SqlQueryable): Promise<void> {
  await tx.query("SELECT pg_advisory_xact_lock(hashtextextended('accounting_category', 0))");
}

/** A category by id, read through `q` (a transaction's, when asked inside one). */
export async function categoryIn(
  q: SqlQueryable,
  id: string,
): Promise<AccountingCategory | undefined> {
  const [row] = await q.query<CategoryRow>(
    `SELECT ${CATEGORY_COLUMNS} FROM accounting_category WHERE id = $1`,
    [id],
  );
  return row && categoryOf(row);
}

async function usableCategory(tx: SqlQueryable, id: string): Promise<void> {
  const [row] = await tx.query<{ archived: boolean }>(
    'SELECT archived FROM accounting_category WHERE id = $1',
    [id],
  );
  if (!row) throw new CategoryUnusableError('missing');
  if (row.archived) throw new CategoryUnusableError('archived');
}
