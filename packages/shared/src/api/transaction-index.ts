import { z } from 'zod';
import { categoryGroups, uncategorized } from '../category-groups';
import {
  ACCOUNTING_ROWS_PER_FILE,
  CARD_MONEY_MAX,
  type IndexGroupingName,
  indexGroupings,
  SPEND_STATUSES,
} from '../index-vocabulary';
import { MERCHANT_DESCRIPTORS } from '../merchants';
import { cardStatusSchema } from '../upstream/card';
import { resourceIdSchema, unixMsStringSchema } from '../upstream/common';
import { transactionStatusSchema } from '../upstream/transaction';
import { OWNER_FILTER_MAX, ownershipFilterNameSchema } from './card-owners';
import { cardListSortSchema, cardSchema, cardSearchSchema } from './cards';
import { tagSchema } from './notes';
import { isoDaySchema, timeZoneSchema, transactionSchema } from './transactions';

/**
 * A query parameter that may be repeated (`?status=declined&status=failed`): one occurrence is
 * a list of one. Marked so the BFF's query check lets this key, and only keys so marked, repeat.
 */
export function repeatable<T extends z.ZodType>(item: T, max: number) {
  return z
    .preprocess((value) => (typeof value === 'string' ? [value] : value), z.array(item).max(max))
    .meta({ repeatable: true });
}

const centsStringSchema = z
  .string()
  .regex(/^\d{1,13}$/, 'must be a whole number of cents')
  .transform(Number);

export const INDEX_PAGE_DEFAULT = 100;
/** A breakdown's largest groups, by spend; the rest are summed as one. */
export const INDEX_BREAKDOWN_GROUPS = 25;
export {
  ACCOUNTING_ROWS_PER_FILE,
  CARD_MONEY_MAX,
  type IndexGroupingName,
  indexGroupings,
  SPEND_STATUSES,
};
export const INDEX_PAGE_MAX = 200;

/**
 * How the index's export writes its rows: Card Console's own columns (every row), or an
 * accounting file of the posted rows only (QuickBooks Online's bank upload or journal entries,
 * Xero's precoded statement).
 */
export const exportFormats = ['card-console', 'quickbooks', 'quickbooks-journal', 'xero'] as const;
export type ExportFormat = (typeof exportFormats)[number];

/** The filter of the index's list, shared by the list, its totals and its CSV export. */
const indexFilterShape = {
  subAccountId: repeatable(resourceIdSchema, 100).optional(),
  q: z.string().max(200, 'must be at most 200 characters').optional(),
  merchant: repeatable(z.string().min(1).max(200), 50).optional(),
  /**
   * Merchants by name, however the card networks write them (`merchants.ts` groups the index's
   * texts): any of them. With `merchant` too, the rows must match both.
   */
  merchantName: repeatable(z.string().min(1).max(200), 20).optional(),
  category: repeatable(
    z.string().regex(/^\d{4}$/, 'must be a four-digit category code'),
    200,
  ).optional(),
  /** A group of codes (`categoryGroups`' keys, or `uncategorized`: no or no known code). */
  categoryGroup: repeatable(
    z.enum([uncategorized.key, ...categoryGroups.map((g) => g.key)]),
    20,
  ).optional(),
  status: repeatable(transactionStatusSchema, 9).optional(),
  cardId: repeatable(resourceIdSchema, 200).optional(),
  /** The cards of these owners, or of these teams, by name in any case (`card-owners.ts`). */
  owner: repeatable(ownershipFilterNameSchema, OWNER_FILTER_MAX).optional(),
  team: repeatable(ownershipFilterNameSchema, OWNER_FILTER_MAX).optional(),
  declineReason: repeatable(z.string().min(1).max(200), 50).optional(),
  /**
   * `1`: rows the card service gave no decline reason for (none, or only spaces: the Overview's
   * "No reason given"); with `declineReason`, rows of any of those reasons or of none.
   */
  noDeclineReason: z.literal('1', { error: 'must be 1 when present' }).optional(),
  /** Rows with a card, or without one (an absent or empty card id is none, docs/money.md). */
  card: z.enum(['with', 'without']).optional(),
  minCents: centsStringSchema.optional(),
  maxCents: centsStringSchema.optional(),
  from: unixMsStringSchema.optional(),
  to: unixMsStringSchema.optional(),
  /** Transaction notes: reviewed or not (a transaction without notes is unreviewed). */
  review: z.enum(['reviewed', 'unreviewed']).optional(),
  /**
   * Accounting categories by id, or `none`: booked to no category. Any of them. As many as a
   * close policy's memo categories (its "Missing memo" list names them all).
   */
  account: repeatable(z.union([z.literal('none'), resourceIdSchema]), 200).optional(),
  /** Tags, any of them, whatever their case. */
  tag: repeatable(tagSchema, 20).optional(),
  /** With a receipt attached, or without any. */
  receipt: z.enum(['attached', 'missing']).optional(),
  /** With a memo written, or none (a transaction without notes has none). */
  memo: z.enum(['missing', 'written']).optional(),
};

/** The list's order, shared by the list and its CSV export. */
const indexOrderShape = {
  sort: z.enum(['date', 'amount']).optional(),
  direction: z.enum(['asc', 'desc']).optional(),
};

/** Refresh: read again the open days last read 5 s ago or more (as the Overview's button). */
const refreshSchema = z.literal('1', { error: 'must be 1 when present' }).optional();

type IndexFilterShape = { from?: number; to?: number; minCents?: number; maxCents?: number };
const boundsInOrder = <T extends z.ZodType<IndexFilterShape>>(schema: T) =>
  schema
    .refine((q) => q.from === undefined || q.to === undefined || q.from <= q.to, {
      message: '"from" must not be after "to"',
      path: ['from'],
    })
    .refine(
      (q) => q.minCents === undefined || q.maxCents === undefined || q.minCents <= q.maxCents,
      { message: '"minCents" must not be more than "maxCents"', path: ['minCents'] },
    );

/** The list's filter alone, as its address has it (a change of every matching row names it). */
export const indexFilterSchema = boundsInOrder(z.strictObject(indexFilterShape));
export type IndexFilterQuery = z.input<typeof indexFilterSchema>;

/**
 * GET /api/index/transactions: a page of the transaction index's rows, every sub account or the
 * ones named. Every given parameter narrows; a repeated one means "any of these" (`category` and
 * `categoryGroup` together: any of those categories). `q` searches the description, the
 * merchant's text and the reference number. Amounts are sizes (either sign), both bounds
 * included; `from` and `to` are Unix ms, both included (as the card service's list). The set's
 * figures are another answer (`indexTotalsQuerySchema`), so the rows never wait on them.
 */
export const indexQuerySchema = boundsInOrder(
  z.strictObject({
    ...indexFilterShape,
    ...indexOrderShape,
    cursor: z.string().min(1).max(1024).optional(),
    refresh: refreshSchema,
    limit: z
      .string()
      .regex(/^\d{1,3}$/, 'must be a whole number')
      .transform(Number)
      .pipe(z.number().int().min(1).max(INDEX_PAGE_MAX))
      .optional(),
  }),
);
export type IndexQuery = z.input<typeof indexQuerySchema>;

/**
 * GET /api/index/transactions/totals: the figures of the whole set the same filter gives (by
 * the definition of money), and, with `by`, its totals by that dimension.
 */
export const indexTotalsQuerySchema = boundsInOrder(
  z.strictObject({
    ...indexFilterShape,
    /** Totals of the set by this too: its largest groups, the rest summed as one. */
    by: z.enum(indexGroupings).optional(),
    refresh: refreshSchema,
  }),
);
export type IndexTotalsQuery = z.input<typeof indexTotalsQuerySchema>;

/**
 * GET /api/index/transactions/export.csv: the list's filter and order, every row, plus how
 * the file is written (as the single sub account's export: `tz`, `fromDay`, `toDay`).
 */
export const indexExportQuerySchema = boundsInOrder(
  z.strictObject({
    ...indexFilterShape,
    ...indexOrderShape,
    tz: timeZoneSchema.optional(),
    fromDay: isoDaySchema.optional(),
    toDay: isoDaySchema.optional(),
    /**
     * The file's columns: Card Console's own (every row, every field and the notes), or, of the
     * posted rows only, QuickBooks Online's bank upload (Date, Description, Amount; MM/DD/YYYY),
     * its journal-entry import (a balanced entry per row, to its accounting category) or Xero's
     * precoded statement (*Date, *Amount, Payee, Description, Reference, Cheque Number, Account
     * code, Tax type; DD/MM/YYYY).
     */
    format: z.enum(exportFormats).optional(),
    /**
     * Which file of an accounting export too long for its importer (`ACCOUNTING_ROWS_PER_FILE`):
     * part N holds rows (N-1)×limit+1 to N×limit of the posted rows, in the list's order.
     *
     * Always with `postedRows` and `postedCents`: the posted set the parts were planned from,
     * its row count and signed cents as the screen showed them (the totals' `summary.posted`).
     * A part is a slice by place of a set a sync can change between two downloads: one row
     * more, and every later row moves a place, so a row would be in two parts (QuickBooks'
     * bank file has no id to catch it) and another in none. Before any byte the BFF counts the
     * posted set of the same filter again (the store's `postedTotal`, the summary's figure):
     * another count or sum answers 409 `matching_changed` ("download every part again"), and a
     * change while the part is read breaks the download off, so no receipt says it is whole.
     * Single files are not planned from the figures and take neither.
     */
    part: z
      .string()
      .regex(/^[1-9]\d{0,3}$/, 'must be a whole number from 1')
      .transform(Number)
      .optional(),
    /** With `part`: how many posted rows the parts were planned from (the screen's figure). */
    postedRows: z
      .string()
      .regex(/^(0|[1-9]\d{0,8})$/, 'must be a whole number of rows')
      .transform(Number)
      .optional(),
    /** With `part`: what those posted rows net to, signed cents (the screen's figure). */
    postedCents: z
      .string()
      .regex(/^(0|-?[1-9]\d{0,14})$/, 'must be a whole number of cents, signed')
      .transform(Number)
      .optional(),
  }),
)
  .refine(
    (q) => q.part === undefined || (q.format !== undefined && q.format in ACCOUNTING_ROWS_PER_FILE),
    {
      message: 'parts are for the QuickBooks bank and Xero files only',
      path: ['part'],
    },
  )
  .refine((q) => (q.part === undefined) === (q.postedRows === undefined), {
    message: 'a part comes with postedRows, the posted rows it was planned from, and only a part',
    path: ['postedRows'],
  })
  .refine((q) => (q.part === undefined) === (q.postedCents === undefined), {
    message: 'a part comes with postedCents, the posted cents it was planned from, and only a part',
    path: ['postedCents'],
  })
  .refine(
    (q) => {
      const limit = q.format === undefined ? undefined : ACCOUNTING_ROWS_PER_FILE[q.format];
      if (q.part === undefined || q.postedRows === undefined || limit === undefined) return true;
      return q.part <= Math.max(1, Math.ceil(q.postedRows / limit));
    },
    { message: 'the posted rows planned have no such part', path: ['part'] },
  );
export type IndexExportQuery = z.input<typeof indexExportQuerySchema>;

/** A transaction's notes as the list shows them (absent: it has none). */
export const indexNotesSchema = z.object({
  memo: z.string(),
  categoryId: z.string().nullable(),
  tags: z.array(z.string()),
  reviewed: z.boolean(),
  /** How many receipts are attached. */
  receipts: z.number().int().nonnegative(),
});
export const indexTransactionSchema = transactionSchema.extend({
  subAccountId: z.string(),
  notes: indexNotesSchema.optional(),
});
export type IndexTransaction = z.infer<typeof indexTransactionSchema>;

/** How current the answer is: the index is a copy of the card service's rows. */
export const indexFreshnessSchema = z.object({
  /**
   * When the least recently synced of the asked sub accounts last had its open days (today and
   * the settling window) read from the card service; absent until every one has been synced once.
   */
  updatedAt: z.number().int().optional(),
  /** A sync of one of them is running now: ask again to see its rows. */
  syncing: z.boolean(),
  /** The running syncs' days read and to read, summed. */
  days: z.number().int().nonnegative(),
  daysDone: z.number().int().nonnegative(),
  /** The running syncs' rows read so far, summed (absent when none runs). */
  rows: z.number().int().nonnegative().optional(),
  /**
   * When the running syncs should end (Unix ms), at the pace they have read their days so far:
   * an estimate, absent until each has read a day.
   */
  doneAt: z.number().int().optional(),
  /**
   * The most recent failed sync of one of them, while it is remembered: why (a sentence for
   * people), when (Unix ms), and when it will be tried again (reads before then do not restart
   * it; each failure in a row waits longer).
   */
  failed: z
    .object({ reason: z.string(), at: z.number().int(), retryAt: z.number().int() })
    .optional(),
});
export type IndexFreshness = z.infer<typeof indexFreshnessSchema>;

/**
 * GET /api/index/transactions/queue: where one transaction stands in the list a filter and
 * order give, for the review queue on its detail: how many rows the set has, its place among
 * them ("12 of 1,131"; none when it no longer matches, as once reviewed under "Unreviewed"), the
 * rows before and after it in that order that match now, and the accounting category its
 * merchant was last booked to (a suggestion; none when the merchant has none).
 */
export const indexQueueQuerySchema = boundsInOrder(
  z.strictObject({
    ...indexFilterShape,
    ...indexOrderShape,
    transactionId: resourceIdSchema,
  }),
);
export type IndexQueueQuery = z.input<typeof indexQueueQuerySchema>;
const queueNeighbourSchema = z.object({ subAccountId: z.string(), id: z.string() });
export const indexQueueSchema = z.object({
  /** The sub account the transaction is in (its detail names it: the card service's does not). */
  subAccountId: z.string().optional(),
  /** Rows the filter gives now. */
  count: z.number().int().nonnegative(),
  /** 1-based place of the transaction among them; absent when it does not match now. */
  position: z.number().int().positive().optional(),
  previous: queueNeighbourSchema.optional(),
  next: queueNeighbourSchema.optional(),
  /** The accounting category the same merchant's latest booked transaction has. */
  suggestedCategoryId: z.string().optional(),
  freshness: indexFreshnessSchema,
});
export type IndexQueue = z.infer<typeof indexQueueSchema>;
/** GET /api/index/transactions/queue/next: only the matching row after it (Save and next). */
export const indexQueueNextSchema = z.object({ next: queueNeighbourSchema.optional() });
export type IndexQueueNext = z.infer<typeof indexQueueNextSchema>;

/**
 * A bucket's figures (docs/money.md, `money-definition.ts`): how many rows, their amounts' sum
 * (signed, as the card service's: negative for money out), and the pending part of both.
 */
export const moneyFigureSchema = z.object({
  count: z.number().int().nonnegative(),
  cents: z.number().int(),
  pendingCount: z.number().int().nonnegative(),
  pendingCents: z.number().int(),
});

/**
 * The figures of a set or a group: every row in exactly one bucket (their counts add up to
 * `count`), and `posted`, the rows an accounting file of the same filter holds and what it
 * nets to (signed cents).
 */
export const indexTotalsSchema = z.object({
  count: z.number().int().nonnegative(),
  buckets: z.object({
    card: moneyFigureSchema,
    refund: moneyFigureSchema,
    payment: moneyFigureSchema,
    transfer: moneyFigureSchema,
    released: moneyFigureSchema,
    attempted: moneyFigureSchema,
    returned: moneyFigureSchema,
  }),
  posted: z.object({ count: z.number().int().nonnegative(), cents: z.number().int() }),
});
export type IndexTotals = z.infer<typeof indexTotalsSchema>;

/** A page of the index's rows, and how current they are. */
export const indexPageSchema = z.object({
  items: z.array(indexTransactionSchema),
  nextCursor: z.string().optional(),
  freshness: indexFreshnessSchema,
});
export type IndexPage = z.infer<typeof indexPageSchema>;

/** The figures of the whole filtered set, and how current they are. */
export const indexTotalsAnswerSchema = z.object({
  summary: indexTotalsSchema,
  freshness: indexFreshnessSchema,
  /**
   * Asked for with `by`: the filtered set's totals by that, its largest groups by spend (card
   * spend and other payments), and the rest summed in `other`: the groups and `other` add up to
   * `summary`.
   */
  breakdown: z
    .object({
      by: z.enum(indexGroupings),
      groups: z.array(
        indexTotalsSchema.extend({
          /** Absent: the rows without that value (no card, no merchant, no reason). */
          key: z.string().optional(),
          /** The card's or category's name, when the BFF knows it. */
          label: z.string().optional(),
        }),
      ),
      /** How many groups in all (more than `groups` shows when larger). */
      groupCount: z.number().int().nonnegative(),
      /** The groups past `groups`, summed as one ("Other 36 cards"); absent when none are left. */
      other: indexTotalsSchema.extend({ groupCount: z.number().int().positive() }).optional(),
    })
    .optional(),
});
export type IndexTotalsAnswer = z.infer<typeof indexTotalsAnswerSchema>;

/**
 * GET /api/index/categories: the merchant categories a filter can name (ISO 18245 codes with
 * their names, the groups of codes the networks assign, and everyday themes such as
 * "software" that no code's name says), for the transactions screen's category search.
 */
export const categoryCatalogSchema = z.object({
  groups: z.array(
    z.object({
      key: z.string(),
      label: z.string(),
      /** Inclusive code bounds, four digits each; absent for "no merchant category". */
      first: z.string().optional(),
      last: z.string().optional(),
    }),
  ),
  categories: z.array(
    z.object({
      code: z.string(),
      name: z.string(),
      group: z.string(),
      /** Everyday words this category answers to ("software", "travel", "meals"). */
      themes: z.array(z.string()).optional(),
    }),
  ),
});
export type CategoryCatalog = z.infer<typeof categoryCatalogSchema>;

/**
 * GET /api/index/cards/:id: a card's money from the index. The sub accounts it spends from (as
 * its transactions show), its spend in the current window of its utilisation limit, and its
 * latest transactions.
 */
/** A card's spend in the current window of its utilisation limit. */
export const cardUtilizationSchema = z.object({
  preset: z.string().optional(),
  limitCents: z.number().int().optional(),
  /** Absent when the window cannot be known ("collective", an unknown preset or zone). */
  window: z.object({ fromDay: z.string(), toDay: z.string(), timeZone: z.string() }).optional(),
  /**
   * Card spend within the window by the definition of money (docs/money.md, what a card's limit
   * counts): its settled, pending and disputed charges less its refunds, positive cents; below 0
   * when more came back than was charged there (a refund of an earlier window's charge). Absent
   * with no window.
   */
  spentCents: z.number().int().optional(),
});
export type CardUtilization = z.infer<typeof cardUtilizationSchema>;

export const indexCardSchema = z.object({
  subAccountIds: z.array(z.string()),
  utilization: cardUtilizationSchema.optional(),
  recent: z.array(indexTransactionSchema),
  freshness: indexFreshnessSchema,
});
export type IndexCard = z.infer<typeof indexCardSchema>;

/**
 * GET /api/index/card-money?cardId=…: the cards list's money, for the cards it shows. Each
 * card's sub accounts and spend against its utilisation limit as the BFF's card directory
 * last read it (`utilization.limitCents` and `preset` say which: a list whose row shows
 * another limit has changed since, and shows no spend until the next read).
 */
export const cardMoneyQuerySchema = z.strictObject({
  cardId: repeatable(resourceIdSchema, CARD_MONEY_MAX),
});
export const cardsMoneySchema = z.object({
  cards: z.array(
    z.object({
      cardId: z.string(),
      subAccountIds: z.array(z.string()),
      /** Absent for a card with no utilisation limit, or one the directory does not know yet. */
      utilization: cardUtilizationSchema.optional(),
    }),
  ),
  freshness: indexFreshnessSchema,
});
export type CardsMoney = z.infer<typeof cardsMoneySchema>;

/** GET /api/index/card-sub-accounts: every card with a transaction, and the sub accounts it spends from. */
export const cardSubAccountsSchema = z.object({
  cards: z.array(z.object({ cardId: z.string(), subAccountIds: z.array(z.string()) })),
  freshness: indexFreshnessSchema,
});
export type CardSubAccounts = z.infer<typeof cardSubAccountsSchema>;

export { MERCHANT_DESCRIPTORS };

/** GET /api/index/merchant?descriptor=…: the merchant a card descriptor names. */
export const indexMerchantQuerySchema = z.strictObject({
  descriptor: z
    .string({ error: 'descriptor is required: the merchant text of a transaction' })
    .min(1, 'descriptor must not be empty')
    .max(200, 'descriptor must be at most 200 characters'),
});
export type IndexMerchantQuery = z.input<typeof indexMerchantQuerySchema>;

/**
 * The merchant a descriptor names (`merchants.ts` in the shared package: processor prefixes,
 * store numbers, city and state taken off) and every descriptor of it the index holds, the
 * most used first: `descriptors` as a list filter takes them, `more` how many are left out.
 */
export const indexMerchantSchema = z.object({
  key: z.string(),
  name: z.string(),
  descriptors: z.array(z.string()),
  /** The descriptors of the merchant past `MERCHANT_DESCRIPTORS`, not named. */
  more: z.number().int().nonnegative(),
  /**
   * When an admin named it (renamed it, or made others one with it): who last, when, and how
   * many of the index's groups of descriptors go by its name so.
   */
  named: z
    .object({ by: z.string(), at: z.string(), groups: z.number().int().positive() })
    .optional(),
  freshness: indexFreshnessSchema,
});
export type IndexMerchant = z.infer<typeof indexMerchantSchema>;

/** A merchant's name as an admin types it: something a merchant can be keyed by. */
const merchantNameText = (what: string) =>
  z
    .string({ error: `${what} is required` })
    .trim()
    .min(1, `${what} must not be empty`)
    .max(200, `${what} must be at most 200 characters`)
    .refine((text) => /[a-z0-9]/i.test(text), `${what} must have a letter (a to z) or a digit`);

/**
 * PUT /api/index/merchants/name (admins): the merchant called `merchant` (every group of
 * descriptors going by that name) goes by `name` from now on, in every list, total, Overview and
 * export. Another merchant's name makes the two one; a new one renames it.
 */
export const merchantNameChangeSchema = z.strictObject({
  merchant: merchantNameText('merchant'),
  name: merchantNameText('name'),
});
export type MerchantNameChange = z.input<typeof merchantNameChangeSchema>;

/** DELETE /api/index/merchants/name?merchant=… (admins): its groups go by their own names again. */
export const merchantNameResetSchema = z.strictObject({ merchant: merchantNameText('merchant') });
export type MerchantNameReset = z.input<typeof merchantNameResetSchema>;

/** What a naming did: the merchant's key and name now, and how many groups it moved. */
export const merchantNamedSchema = z.object({
  key: z.string(),
  name: z.string(),
  groups: z.number().int().positive(),
});
export type MerchantNamed = z.infer<typeof merchantNamedSchema>;

/**
 * GET /api/index/cards?subAccountId=…: the cards that spend from a sub account (its
 * transactions in the index say which), as the BFF's card directory last read them (at most a
 * minute old), searched, filtered and sorted as the cards list is; all of them, in one answer.
 */
export const indexCardListQuerySchema = z.strictObject({
  subAccountId: resourceIdSchema,
  q: cardSearchSchema.optional(),
  owner: ownershipFilterNameSchema.optional(),
  team: ownershipFilterNameSchema.optional(),
  status: cardStatusSchema.optional(),
  sort: cardListSortSchema.optional(),
  direction: z.enum(['asc', 'desc']).optional(),
});
export type IndexCardListQuery = z.input<typeof indexCardListQuerySchema>;
export const indexCardListSchema = z.object({
  items: z.array(cardSchema),
  freshness: indexFreshnessSchema,
});
export type IndexCardList = z.infer<typeof indexCardListSchema>;

/**
 * GET /api/index/attention: what the month close still needs, over every sub account and the
 * period asked (`from`/`to`, Unix ms, both included; absent: all the index holds), of the money
 * that moved or will (docs/money.md: posted or pending; declined, canceled, failed, reversed and
 * returned rows are never to review): money out at or above the close policy's size without a
 * receipt, booked to one of its memo categories without a memo, transactions to review (not
 * reviewed), booked to no accounting category; and apart, the declined (attempted). Each is a
 * filter of the list (the moving statuses with `receipt=missing` and `minCents`, with
 * `account=<the memo categories>` and `memo=missing`, `review=unreviewed`, `account=none`; the
 * attempted ones).
 */
export const attentionQuerySchema = boundsInOrder(
  z.strictObject({
    from: unixMsStringSchema.optional(),
    to: unixMsStringSchema.optional(),
    /** Money moved at or above this size needs a receipt (default: the close policy's). */
    receiptFromCents: centsStringSchema.optional(),
  }),
);
/** Spend at or above this needs a receipt until an admin sets a close policy (a common expense policy). */
export const RECEIPT_FROM_CENTS_DEFAULT = 7_500;
const attentionCountSchema = z.object({
  count: z.number().int().nonnegative(),
  /** Their money out (card charges and other payments, settled or pending), positive cents. */
  debitCents: z.number().int().nonnegative(),
});
export const attentionSchema = z.object({
  /**
   * Money moved (posted or pending) at or above `fromCents` (the close policy's, or the query's
   * `receiptFromCents`), with no receipt; `fromCents` null: no receipt policy, nothing counted.
   */
  missingReceipt: attentionCountSchema.extend({
    fromCents: z.number().int().nonnegative().nullable(),
  }),
  /**
   * Money moved booked to one of the close policy's memo categories (`categoryIds`), with no
   * memo; none counted when the policy names none.
   */
  missingMemo: attentionCountSchema.extend({ categoryIds: z.array(z.string()) }),
  unreviewed: attentionCountSchema,
  uncategorized: attentionCountSchema,
  /** Declined (attempted): declined, canceled and failed, no money moved; `cents` signed. */
  declined: z.object({ count: z.number().int().nonnegative(), cents: z.number().int() }),
  freshness: indexFreshnessSchema,
});
export type Attention = z.infer<typeof attentionSchema>;
