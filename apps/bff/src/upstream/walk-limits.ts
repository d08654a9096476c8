import type { PageSource, WalkLimits } from '../platform/pagination/walk-budget';

/** The card service as a walk's source: what its walks' errors say and are. */
export const cardService: PageSource = {
  name: 'the card service',
  repeated: { status: 502, code: 'upstream_invalid_response' },
  tooLong: { status: 502, code: 'upstream_bad_gateway' },
  timeout: { status: 504, code: 'upstream_timeout' },
};

/**
 * The page cap and time budget of every kind of walk, in one place (the one paginator,
 * `platform/pagination/`, enforces them). A legitimate walk stays well inside both; an endless list (a service that always
 * answers a fresh cursor) ends at whichever comes first, with a clear error: 502
 * `upstream_bad_gateway` ("… listed sub accounts past 400 pages …") or 504 `upstream_timeout`
 * ("Reading sub accounts from the card service took longer than 15 s …").
 *
 * Sizes assume the card service's pages (the simulator's: 25 sub accounts or cards, 50
 * transactions); the time budgets sit above one call's own deadline (12 s, `client-options.ts`)
 * where a person waits for the answer, and far above the walks the benchmarks time.
 */
export const WALK_LIMITS = {
  /**
   * The whole sub-account list, read on a person's request (the Overview's balances, a
   * limit preview's sub accounts, the name check before creating one): 10,000 sub accounts.
   */
  subAccounts: { what: 'sub accounts', maxPages: 400, timeMs: 15_000 },
  /** The card directory's background walk of the card list: 100,000 cards. */
  cards: { what: 'cards', maxPages: 4_000, timeMs: 120_000 },
  /**
   * A limit preview: a card's 90 days in every sub account, while the person waits (the
   * sub-account list within it has its own limits above).
   */
  limitPreview: { what: "the card's transactions", maxPages: 10_000, timeMs: 30_000 },
  /**
   * One Overview computation, in the background: every sub account's days of two periods
   * (1,000,000 transactions in a year are about 20,000 pages).
   */
  overview: { what: 'transactions for the Overview', maxPages: 100_000, timeMs: 600_000 },
  /**
   * One sub account's sync into the transaction index, in the background: its first sync reads
   * 732 days (1,000,000 transactions are about 20,000 pages).
   */
  index: { what: 'transactions for the index', maxPages: 100_000, timeMs: 1_800_000 },
  /** One CSV export, paced by the download: 100,000 pages are 5,000,000 rows. */
  export: { what: 'transactions for the export', maxPages: 100_000, timeMs: 1_800_000 },
  /**
   * One export or receipts ZIP from the transaction index (2,000 rows a page), paced by the
   * download: 10,000,000 rows.
   */
  indexExport: { what: 'transactions from the index', maxPages: 5_000, timeMs: 1_800_000 },
  /** One audit export, from the audit trail (500 records a page): 10,000,000 records. */
  auditExport: { what: 'audit records', maxPages: 20_000, timeMs: 1_800_000 },
} as const satisfies Record<string, WalkLimits>;
