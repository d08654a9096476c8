// The receipt inbox in the index's SQL store (PostgreSQL or the embedded engine; migration
// `receipt-inbox`): each person's items, what the reader found, the suggestions, and the
// forwarding addresses. Attaching moves the bytes into `transaction_receipt` in the same
// transaction as the item's change (and its audit record), under the notes' receipt locks.
import { createHash, randomBytes } from 'node:crypto';
import type { Receipt } from '@card-console/shared/api/notes';
import {
  INBOX_ATTACHED_DAYS,
  INBOX_MAX_ITEMS,
  type InboxItem,
  type InboxList,
  type InboxRead,
  type InboxStatus,
  type InboxSuggestion,
} from '@card-console/shared/api/receipt-inbox';
import { hasCard, statusesOf } from '@card-console/shared/money-definition';
import {
  type Audited,
  committed,
  type SqlEngine,
  type SqlQueryable,
} from '../../platform/sql/sql-engine';
import { addReceiptIn } from '../notes';
import type { CandidateWindow, MatchCandidate } from './receipt-matching';

/** The inbox holds INBOX_MAX_ITEMS not yet attached. */
export class InboxFullError extends Error {
  constructor(readonly limit: number) {
    super('inbox full');
    this.name = 'InboxFullError';
  }
}

/** The item was attached (by its person elsewhere, or automatically) before this change. */
export class InboxItemAttachedError extends Error {
  constructor() {
    super('inbox item attached');
    this.name = 'InboxItemAttachedError';
  }
}

/**
 * The same file (by its bytes) of the same mail message (its Message-ID) is in the inbox: the
 * message sent again (its server was answered "try later" after some attachments were kept).
 */
export class InboxDuplicateError extends Error {
  constructor(readonly item: InboxItem) {
    super('inbox item received before');
    this.name = 'InboxDuplicateError';
  }
}

interface ItemRow {
  id: string;
  owner: string;
  file_name: string;
  media_type: string;
  byte_size: number;
  via: 'upload' | 'email';
  received_at: Date | string;
  status: InboxStatus;
  read_total_cents: string | null;
  read_date: string | null;
  read_merchant: string | null;
  read_problem: InboxRead['problem'] | null;
  suggestions: InboxSuggestion[] | string;
  attached_sub_account_id: string | null;
  attached_transaction_id: string | null;
  attached_receipt_id: string | null;
  attached_automatic: boolean | null;
  attached_at: Date | string | null;
  attached_description: string | null;
  attached_transaction_at: Date | string | null;
  attached_amount_cents: string | null;
}

const COLUMNS = `id, owner, file_name, media_type, byte_size, via, received_at, status,
  read_total_cents::text AS read_total_cents, to_char(read_date, 'YYYY-MM-DD') AS read_date,
  read_merchant, read_problem, suggestions, attached_sub_account_id, attached_transaction_id,
  attached_receipt_id, attached_automatic, attached_at, attached_description,
  attached_transaction_at, attached_amount_cents::text AS attached_amount_cents`;

const iso = (value: Date | string) => new Date(value).toISOString();

function itemOf(row: ItemRow): InboxItem {
  const read: InboxRead = {
    ...(row.read_total_cents === null ? {} : { totalCents: Number(row.read_total_cents) }),
    ...(row.read_date === null ? {} : { date: row.read_date }),
    ...(row.read_merchant === null ? {} : { merchant: row.read_merchant }),
    ...(row.read_problem === null ? {} : { problem: row.read_problem }),
  };
  const suggestions =
    typeof row.suggestions === 'string'
      ? (JSON.parse(row.suggestions) as InboxSuggestion[])
      : row.suggestions;
  return {
    id: row.id,
    fileName: row.file_name,
    mediaType: row.media_type,
    byteSize: row.byte_size,
    receivedAt: iso(row.received_at),
    via: row.via,
    status: row.status,
    ...(row.status === 'reading' ? {} : { read }),
    suggestions: row.status === 'suggested' ? suggestions : [],
    ...(row.status === 'attached' && row.attached_receipt_id !== null
      ? {
          attached: {
            subAccountId: row.attached_sub_account_id ?? '',
            transactionId: row.attached_transaction_id ?? '',
            receiptId: row.attached_receipt_id,
            description: row.attached_description ?? '',
            transactionAt: iso(row.attached_transaction_at ?? row.received_at),
            amountCents: Number(row.attached_amount_cents ?? 0),
            automatic: row.attached_automatic === true,
            at: iso(row.attached_at ?? row.received_at),
          },
        }
      : {}),
  };
}

/** What the reader found and what it matched, as an item keeps it. */
export interface ReadResult {
  read: InboxRead;
  suggestions: InboxSuggestion[];
}

/** Where an item goes, and who or what decided it. */
export interface AttachTarget {
  subAccountId: string;
  transactionId: string;
  /** The transaction as it is now (the inbox names it by these from then on). */
  description: string;
  at: string;
  amountCents: number;
  automatic: boolean;
  /**
   * What the reader found and the match, saved with the attach (a match for certain, straight
   * from `reading`): nobody sees the item read but not yet attached.
   */
  read?: ReadResult;
}

/** The read fields' columns, set from `readParams`' values from $2 on ($1 is the item's id). */
const SET_READ = `read_total_cents = $2, read_date = $3::date, read_merchant = $4,
          read_problem = $5, suggestions = $6::jsonb, matched_at = $7`;

function readParams({ read, suggestions }: ReadResult, at: Date): unknown[] {
  return [
    read.totalCents ?? null,
    read.date ?? null,
    read.merchant ?? null,
    read.problem ?? null,
    JSON.stringify(suggestions),
    at.toISOString(),
  ];
}

/**
 * `owner`'s receipt inbox and forwarding address, dropped in the transaction `tx` that removes
 * them from People (src/stores.ts): the inbox is theirs alone, and whoever is given the email
 * next must neither see its files nor be handed the same address, whose mail the departed person
 * could still send. Receipts already attached stay on their transactions. What it dropped, in
 * words, for the removal's audit record.
 */
export async function dropInboxOf(tx: SqlQueryable, owner: string): Promise<string[]> {
  const [items] = await tx.query<{ waiting: number }>(
    `WITH gone AS (DELETE FROM receipt_inbox_item WHERE lower(owner) = $1 RETURNING status)
     SELECT count(*) FILTER (WHERE status <> 'attached')::int AS waiting FROM gone`,
    [owner],
  );
  const address = await tx.query(
    'DELETE FROM receipt_forwarding_address WHERE lower(owner) = $1 RETURNING owner',
    [owner],
  );
  const waiting = items?.waiting ?? 0;
  return [
    waiting === 0
      ? ''
      : `${waiting} receipt${waiting === 1 ? '' : 's'} in their inbox, not attached`,
    address.length > 0 ? 'their receipt forwarding address' : '',
  ].filter((text) => text !== '');
}

export class ReceiptInboxStore {
  constructor(private readonly engine: SqlEngine) {}

  /**
   * A file into `owner`'s inbox, `reading`; InboxFullError when it already holds
   * INBOX_MAX_ITEMS not attached (counted under the owner's lock: two uploads cannot pass it).
   * With `mailMessageId` (a mailed file's message), InboxDuplicateError (nothing written) when
   * the same bytes of that message are in the inbox already, whatever became of them: a mail
   * server sending the message again does not put its attachments in twice (decided under the
   * same lock). The same receipt forwarded again, in a message of its own, is kept again.
   */
  async receive(
    owner: string,
    file: { fileName: string; mediaType: string; content: Buffer },
    via: 'upload' | 'email',
    at: Date,
    audited?: Audited<InboxItem>,
    mailMessageId?: string,
  ): Promise<InboxItem> {
    const sha256 = createHash('sha256').update(file.content).digest('hex');
    return this.engine.transaction(async (tx) => {
      await lockOwner(tx, owner);
      if (mailMessageId !== undefined) {
        const [before] = await tx.query<ItemRow>(
          `SELECT ${COLUMNS} FROM receipt_inbox_item
            WHERE owner = $1 AND mail_message_id = $2 AND sha256 = $3
            ORDER BY received_at, id LIMIT 1`,
          [owner, mailMessageId, sha256],
        );
        if (before) throw new InboxDuplicateError(itemOf(before));
      }
      const [count] = await tx.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM receipt_inbox_item WHERE owner = $1 AND status <> 'attached'`,
        [owner],
      );
      if ((count?.n ?? 0) >= INBOX_MAX_ITEMS) throw new InboxFullError(INBOX_MAX_ITEMS);
      const [row] = await tx.query<ItemRow>(
        `INSERT INTO receipt_inbox_item
           (id, owner, file_name, media_type, byte_size, sha256, content, via, received_at, status,
            mail_message_id)
         VALUES ($1, $2, $3, $4, $5, $6, decode($7, 'base64'), $8, $9, 'reading', $10)
         RETURNING ${COLUMNS}`,
        [
          randomBytes(16).toString('base64url'),
          owner,
          file.fileName,
          file.mediaType,
          file.content.length,
          sha256,
          file.content.toString('base64'),
          via,
          at.toISOString(),
          mailMessageId ?? null,
        ],
      );
      return committed(tx, itemOf(row as ItemRow), audited);
    });
  }

  /** `owner`'s items, newest first: all not attached, and those attached in the last 30 days. */
  async list(owner: string, now: Date): Promise<InboxList> {
    const rows = await this.engine.query<ItemRow>(
      `SELECT ${COLUMNS} FROM receipt_inbox_item
        WHERE owner = $1 AND (status <> 'attached' OR attached_at >= $2)
        ORDER BY received_at DESC, id DESC LIMIT $3`,
      [
        owner,
        new Date(now.getTime() - INBOX_ATTACHED_DAYS * 86_400_000).toISOString(),
        INBOX_MAX_ITEMS * 2,
      ],
    );
    const items = rows.map(itemOf);
    const counts: InboxList['counts'] = { reading: 0, suggested: 0, waiting: 0, attached: 0 };
    for (const item of items) counts[item.status]++;
    return { items, counts };
  }

  /** One of `owner`'s items (any status), or undefined. */
  async item(owner: string, id: string): Promise<InboxItem | undefined> {
    const [row] = await this.engine.query<ItemRow>(
      `SELECT ${COLUMNS} FROM receipt_inbox_item WHERE id = $1 AND owner = $2`,
      [id, owner],
    );
    return row && itemOf(row);
  }

  /** An item's file: its own bytes, or once attached the receipt's; undefined if not `owner`'s. */
  async file(
    owner: string,
    id: string,
  ): Promise<{ fileName: string; mediaType: string; content: Buffer } | undefined> {
    const [row] = await this.engine.query<{
      file_name: string;
      media_type: string;
      content: string | null;
    }>(
      `SELECT i.file_name, i.media_type,
              encode(coalesce(i.content, r.content), 'base64') AS content
         FROM receipt_inbox_item i
         LEFT JOIN transaction_receipt r ON r.id = i.attached_receipt_id
        WHERE i.id = $1 AND i.owner = $2`,
      [id, owner],
    );
    if (!row || row.content === null) return undefined;
    return {
      fileName: row.file_name,
      mediaType: row.media_type,
      content: Buffer.from(row.content, 'base64'),
    };
  }

  /** What the reader needs of an item still to be read; undefined when it is read or gone. */
  async toRead(
    id: string,
  ): Promise<{ owner: string; mediaType: string; content: Buffer } | undefined> {
    const [row] = await this.engine.query<{ owner: string; media_type: string; content: string }>(
      `SELECT owner, media_type, encode(content, 'base64') AS content FROM receipt_inbox_item
        WHERE id = $1 AND status = 'reading'`,
      [id],
    );
    return (
      row && {
        owner: row.owner,
        mediaType: row.media_type,
        content: Buffer.from(row.content, 'base64'),
      }
    );
  }

  /**
   * `owner`'s items still `reading` that arrived before `before` and whose `receipt-inbox` job
   * (platform/jobs' table, in this engine) failed or was never asked for: nothing will read them
   * unless asked again. Oldest first, at most `limit`.
   */
  async staleReading(owner: string, before: Date, limit: number): Promise<string[]> {
    const rows = await this.engine.query<{ id: string }>(
      `SELECT i.id FROM receipt_inbox_item i
         LEFT JOIN background_job j ON j.kind = 'receipt-inbox' AND j.key = i.id
        WHERE i.owner = $1 AND i.status = 'reading' AND i.received_at < $2
          AND (j.key IS NULL OR j.state = 'failed')
        ORDER BY i.received_at, i.id LIMIT $3`,
      [owner, before.toISOString(), limit],
    );
    return rows.map((row) => row.id);
  }

  /** An item's read fields, or undefined when it is gone or attached. */
  async readOf(id: string): Promise<{ owner: string; read: InboxRead } | undefined> {
    const [row] = await this.engine.query<ItemRow>(
      `SELECT ${COLUMNS} FROM receipt_inbox_item WHERE id = $1 AND status <> 'attached'`,
      [id],
    );
    return row && { owner: row.owner, read: itemOf(row).read ?? {} };
  }

  /**
   * Card charges (money moved or pending, a card, a debit: shared/money-definition.ts) whose
   * size is in the window's range and posted in its time, with whether each has a receipt and
   * leaving out the reviewed ones (their receipts are locked). At most 200.
   */
  async candidates(window: CandidateWindow): Promise<MatchCandidate[]> {
    const rows = await this.engine.query<{
      sub_account_id: string;
      id: string;
      at: Date | string;
      description: string;
      merchant: string | null;
      category_code: string | null;
      amount_cents: string;
      card_id: string | null;
      has_receipt: boolean;
    }>(
      `SELECT t.sub_account_id, t.id, t.at, t.description, t.merchant, t.category_code,
              t.amount_cents::text AS amount_cents, t.card_id,
              EXISTS (SELECT 1 FROM transaction_receipt r WHERE r.transaction_id = t.id) AS has_receipt
         FROM index_transaction t
        WHERE abs(t.amount_cents) BETWEEN $1 AND $2 AND t.amount_cents < 0
          AND t.at >= $3 AND t.at < $4 AND t.status = ANY($5::text[])
          AND NOT EXISTS (SELECT 1 FROM transaction_notes n
                           WHERE n.transaction_id = t.id AND n.reviewed_at IS NOT NULL)
        ORDER BY t.at DESC, t.sub_account_id, t.id
        LIMIT 200`,
      [
        window.lowCents,
        window.highCents,
        window.fromAt,
        window.toAt,
        statusesOf(['posted', 'pending']),
      ],
    );
    return rows
      .filter((row) => hasCard({ cardId: row.card_id }))
      .map((row) => ({
        subAccountId: row.sub_account_id,
        id: row.id,
        at: iso(row.at),
        description: row.description,
        merchant: row.merchant ?? undefined,
        categoryCode: row.category_code ?? undefined,
        amountCents: Number(row.amount_cents),
        hasReceipt: row.has_receipt,
      }));
  }

  /**
   * What the reader found and the match, on an item still `reading` (or `waiting`, matched
   * again): `suggested` with suggestions, `waiting` without. False when the item was
   * attached or discarded meanwhile.
   */
  async saveRead(id: string, result: ReadResult, at: Date): Promise<boolean> {
    const rows = await this.engine.query<{ id: string }>(
      `UPDATE receipt_inbox_item SET ${SET_READ}, status = $8
        WHERE id = $1 AND status IN ('reading', 'waiting') RETURNING id`,
      [id, ...readParams(result, at), result.suggestions.length > 0 ? 'suggested' : 'waiting'],
    );
    return rows.length > 0;
  }

  /**
   * `owner`'s waiting items with a total read, last matched before `before` (oldest first, at
   * most `limit`), taken to be matched again: their match time becomes `at`, so a look at the
   * same moment (another tab, another replica) takes none of them again.
   */
  async claimWaiting(owner: string, before: Date, at: Date, limit: number): Promise<string[]> {
    const rows = await this.engine.query<{ id: string }>(
      `WITH due AS (
         SELECT id FROM receipt_inbox_item
          WHERE owner = $1 AND status = 'waiting' AND read_total_cents IS NOT NULL
            AND matched_at < $2
          ORDER BY matched_at LIMIT $4 FOR UPDATE SKIP LOCKED)
       UPDATE receipt_inbox_item item SET matched_at = $3 FROM due
        WHERE item.id = due.id RETURNING item.id`,
      [owner, before.toISOString(), at.toISOString(), limit],
    );
    return rows.map((row) => row.id);
  }

  /**
   * Attaches an item (of `owner`, when given) to a transaction: its bytes become the
   * transaction's receipt (NotesStore's limits and locks: `TooManyReceiptsError`,
   * `NotesConflictError` when reviewed; an automatic attach only as the first receipt) and the
   * item `attached` (with `target.read`, what was read too), in one transaction with the audit
   * hook. Undefined when there is no such item; InboxItemAttachedError when it already was.
   */
  async attach(
    owner: string | undefined,
    id: string,
    target: AttachTarget,
    receiptLimit: number,
    actor: string,
    at: Date,
    audited?: Audited<{ item: InboxItem; receipt: Receipt }>,
  ): Promise<{ item: InboxItem; receipt: Receipt } | undefined> {
    return this.engine.transaction(async (tx) => {
      const [row] = await tx.query<ItemRow & { content: string | null }>(
        `SELECT ${COLUMNS}, encode(content, 'base64') AS content FROM receipt_inbox_item
          WHERE id = $1 AND ($2::text IS NULL OR owner = $2) FOR UPDATE`,
        [id, owner ?? null],
      );
      if (!row) return undefined;
      if (row.status === 'attached' || row.content === null) throw new InboxItemAttachedError();
      const { receipt } = await addReceiptIn(
        tx,
        target.transactionId,
        {
          fileName: row.file_name,
          mediaType: row.media_type,
          content: Buffer.from(row.content, 'base64'),
        },
        // Matched for certain only onto a transaction with no receipt yet: the matching read that
        // before this transaction, so it is asked again here, under the receipts' lock. Of two
        // receipts matched at once to one transaction (two replicas) one lands; the other is
        // refused (`TooManyReceiptsError`) and stays suggested for its person to confirm.
        target.automatic ? 1 : receiptLimit,
        actor,
        at,
      );
      if (target.read) {
        await tx.query(`UPDATE receipt_inbox_item SET ${SET_READ} WHERE id = $1`, [
          id,
          ...readParams(target.read, at),
        ]);
      }
      const [saved] = await tx.query<ItemRow>(
        `UPDATE receipt_inbox_item SET status = 'attached', content = NULL,
            attached_sub_account_id = $2, attached_transaction_id = $3, attached_receipt_id = $4,
            attached_automatic = $5, attached_at = $6, attached_description = $7,
            attached_transaction_at = $8, attached_amount_cents = $9
          WHERE id = $1 RETURNING ${COLUMNS}`,
        [
          id,
          target.subAccountId,
          target.transactionId,
          receipt.id,
          target.automatic,
          at.toISOString(),
          target.description,
          target.at,
          target.amountCents,
        ],
      );
      return committed(tx, { item: itemOf(saved as ItemRow), receipt }, audited);
    });
  }

  /** Removes one of `owner`'s items not attached; undefined if there is none such. */
  async discard(
    owner: string,
    id: string,
    audited?: Audited<InboxItem>,
  ): Promise<InboxItem | undefined> {
    return this.engine.transaction(async (tx) => {
      const [row] = await tx.query<ItemRow>(
        `SELECT ${COLUMNS} FROM receipt_inbox_item WHERE id = $1 AND owner = $2 FOR UPDATE`,
        [id, owner],
      );
      if (!row) return undefined;
      if (row.status === 'attached') throw new InboxItemAttachedError();
      await tx.query('DELETE FROM receipt_inbox_item WHERE id = $1', [id]);
      return committed(tx, itemOf(row), audited);
    });
  }

  /** `owner`'s forwarding secret, made the first time it is asked for. */
  async forwardingSecret(owner: string, make: () => string, at: Date): Promise<string> {
    const [row] = await this.engine.query<{ secret: string }>(
      `INSERT INTO receipt_forwarding_address (owner, secret, created_at) VALUES ($1, $2, $3)
       ON CONFLICT (owner) DO UPDATE SET owner = EXCLUDED.owner
       RETURNING secret`,
      [owner, make(), at.toISOString()],
    );
    return (row as { secret: string }).secret;
  }

  /** Replaces `owner`'s secret: mail to the old one is refused from the commit on. */
  async rotateForwardingSecret(
    owner: string,
    secret: string,
    at: Date,
    audited?: Audited<string>,
  ): Promise<string> {
    return this.engine.transaction(async (tx) => {
      await tx.query(
        `INSERT INTO receipt_forwarding_address (owner, secret, created_at) VALUES ($1, $2, $3)
         ON CONFLICT (owner) DO UPDATE SET secret = EXCLUDED.secret, created_at = EXCLUDED.created_at`,
        [owner, secret, at.toISOString()],
      );
      return committed(tx, secret, audited);
    });
  }

  /** Whose the secret is, or undefined (never made, or replaced); who may still use it is the service's. */
  async ownerOfSecret(secret: string): Promise<string | undefined> {
    const [row] = await this.engine.query<{ owner: string }>(
      'SELECT owner FROM receipt_forwarding_address WHERE secret = $1',
      [secret],
    );
    return row?.owner;
  }
}

/** `owner`'s inbox serialised: a transaction-scoped advisory lock on its name. */
async function lockOwner(tx: SqlQueryable, owner: string): Promise<void> {
  await tx.query("SELECT count(pg_advisory_xact_lock(hashtextextended('inbox:' || $1, 0)))", [
    owner,
  ]);
}
