import { z } from 'zod';
import { MERCHANT_DESCRIPTORS } from '../merchants';
import { type MoneyBucket, moneyBuckets } from '../money-definition';
import { resourceIdSchema } from '../upstream/common';
import { isoDaySchema, timeZoneSchema } from './transactions';

/**
 * Insights: aggregates the BFF computes from the transaction list (never the browser), by the
 * one definition of money (`../money-definition.ts`). Money is integer cents; card spend is
 * reported positive (charges less refunds), a bucket's `cents` signed as upstream (a debit
 * negative). Days are calendar days in the person's time zone (`tz`).
 */

/** A day in an answer: the BFF writes real days; its shape is what is checked on the way out. */
const isoDay = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'a day as YYYY-MM-DD');

/** The longest period the Overview covers, in days. */
export const OVERVIEW_MAX_DAYS = 366;

const dayNumber = (day: string) => Date.parse(`${day}T00:00:00Z`) / 86_400_000;

/** GET /api/overview */
export const overviewQuerySchema = z
  .strictObject({
    /** One sub account; absent: all of them. */
    subAccountId: resourceIdSchema.optional(),
    /** First and last day of the period (inclusive), in `tz`. */
    from: isoDaySchema,
    to: isoDaySchema,
    /**
     * The person's IANA time zone, in the one spelling the runtime knows: Intl resolves case
     * and links to one id (`utc`, `Etc/UTC`, `Zulu` → `UTC`; `US/Eastern` →
     * `America/New_York`), so equal zones share one key of the aggregates, and the answer's
     * period says the zone as it was computed in.
     */
    tz: timeZoneSchema.transform(
      (zone) => new Intl.DateTimeFormat('en-US', { timeZone: zone }).resolvedOptions().timeZone,
    ),
    /** `1`: read the days that can still change again now, however recently they were read. */
    refresh: z.literal('1', { error: 'must be 1 when present' }).optional(),
  })
  .refine((q) => q.from <= q.to, { message: 'must not be after "to"', path: ['from'] })
  .refine((q) => dayNumber(q.to) - dayNumber(q.from) + 1 <= OVERVIEW_MAX_DAYS, {
    message: `a period covers at most ${OVERVIEW_MAX_DAYS} days`,
    path: ['to'],
  });
export type OverviewQuery = z.input<typeof overviewQuerySchema>;

/** One bucket's figures (`money-definition.ts`, `MoneyFigure`): signed cents, debits negative. */
export const moneyFigureSchema = z.object({
  count: z.number().int().nonnegative(),
  cents: z.number().int(),
  /** The pending part of both (never in the books yet). */
  pendingCount: z.number().int().nonnegative(),
  pendingCents: z.number().int(),
});

/**
 * What a set of transactions adds up to, by the one definition of money
 * (`@card-console/shared/money-definition`, docs/money.md): every row in exactly one bucket.
 */
export const totalsSchema = z.object({
  /**
   * Net card spend in positive cents: card charges less refunds, settled, pending and disputed
   * (`netCardSpendCents`). Never other payments, transfers or what never moved.
   */
  cardSpendCents: z.number().int(),
  /** The pending part of `cardSpendCents` (charges less refunds still pending). */
  cardSpendPendingCents: z.number().int(),
  /** Each bucket's figures: card, refund, payment, transfer, released, attempted, returned. */
  money: z.object(
    Object.fromEntries(moneyBuckets.map((b) => [b, moneyFigureSchema])) as Record<
      MoneyBucket,
      typeof moneyFigureSchema
    >,
  ),
  /** Every transaction in the period, whatever its status. */
  count: z.number().int().nonnegative(),
});
export type Totals = z.infer<typeof totalsSchema>;

export const dayPointSchema = z.object({
  /** YYYY-MM-DD in `tz`; for weekly buckets, the week's first day (Monday). */
  day: isoDay,
  /** Net card spend of the day or week (as `totals.cardSpendCents`). */
  cardSpendCents: z.number().int(),
  count: z.number().int().nonnegative(),
});

export const rankedSchema = z.object({
  /** What the row is: a category group key, a merchant's name, a card id. */
  key: z.string(),
  label: z.string(),
  /** Net card spend of the group: its card charges less its refunds (negative if more came back). */
  spentCents: z.number().int(),
  /** Card charges and refunds counted in it. */
  count: z.number().int().nonnegative(),
});

export const overviewSchema = z.object({
  /** `computing`: a period never computed before is being walked; ask again for more. */
  status: z.enum(['complete', 'computing', 'failed']),
  progress: z
    .object({
      rowsRead: z.number().int().nonnegative(),
      /** An estimate from the days already known; absent when nothing is known yet. */
      rowsEstimated: z.number().int().nonnegative().optional(),
    })
    .optional(),
  /**
   * When the oldest of the period's days that can still change (today, pending transactions)
   * was read from the service: what it listed after that may be missing. Absent when every
   * day is final.
   */
  updatedAt: z.iso.datetime().optional(),
  /** On `failed`: what went wrong, in words; the aggregates hold what was known. */
  error: z.string().optional(),
  /** On `failed`: when a read will compute the period again (before then it answers this). */
  retryAt: z.iso.datetime().optional(),
  period: z.object({ from: isoDay, to: isoDay, tz: z.string() }),
  /** Balance and spend as the service reports them for the sub account(s). */
  balanceCents: z.number().int().optional(),
  spendCents: z.number().int().optional(),
  totals: totalsSchema,
  /** The same number of days just before `from`. */
  previousTotals: totalsSchema.optional(),
  granularity: z.enum(['day', 'week']),
  series: z.array(dayPointSchema),
  previousSeries: z.array(dayPointSchema).optional(),
  /** Card spend by ISO 18245 merchant category group, largest first (rows with a card only). */
  categories: z.array(rankedSchema),
  /**
   * The top merchant category codes by card spend (`key` the code, `label` its name). Only when the
   * Overview was read from the transaction index (the card service's walk keeps groups only).
   */
  categoryCodes: z.array(rankedSchema).optional(),
  /**
   * Top merchants by card spend, each however the card networks wrote it (`merchants.ts`):
   * `key` and `label` its name; `ways` how many texts it had in the period, `descriptors` the
   * first `MERCHANT_DESCRIPTORS` of them, most spend first.
   */
  merchants: z.array(
    rankedSchema.extend({
      ways: z.number().int().positive(),
      descriptors: z.array(z.string()).min(1).max(MERCHANT_DESCRIPTORS),
    }),
  ),
  /** Top cards by card spend; `label` is the card's name and last 4 when the BFF knows them. */
  cards: z.array(rankedSchema),
  declines: z.object({
    count: z.number().int().nonnegative(),
    /** Declined / (card transactions), 0 when there were none. */
    rate: z.number().min(0).max(1),
    reasons: z.array(z.object({ reason: z.string(), count: z.number().int().nonnegative() })),
  }),
});
export type Overview = z.infer<typeof overviewSchema>;

/** Cents in a query string: digits only (no sign, exponent, point or spaces), then a number. */
const centsParameter = z
  .string()
  .regex(/^\d{1,15}$/, 'a whole number of cents, digits only')
  .transform(Number)
  .pipe(z.number().int().nonnegative().max(1_000_000_000_00));

/** GET /api/cards/:id/limit-impact?minimumCents=&maximumCents= */
export const limitImpactQuerySchema = z
  .strictObject({
    minimumCents: centsParameter.optional(),
    maximumCents: centsParameter.optional(),
  })
  .refine(
    (q) =>
      q.minimumCents === undefined ||
      q.maximumCents === undefined ||
      q.minimumCents <= q.maximumCents,
    { message: 'the minimum must not be above the maximum', path: ['minimumCents'] },
  );

/** A number of the card's charges and their amounts' sum, in positive cents. */
const chargesSchema = z.object({
  count: z.number().int().nonnegative(),
  sumCents: z.number().int().nonnegative(),
});

/** Transaction-size limits, both inclusive (an amount equal to one passes; no maximum: none). */
const sizeLimitsSchema = z.object({
  minimumCents: z.number().int().nonnegative(),
  maximumCents: z.number().int().nonnegative().optional(),
});

/** What one set of limits would have done to the card's charges in the window. */
const limitsOutcomeSchema = z.object({
  limits: sizeLimitsSchema,
  /** Of the charges that went through, those these limits would have refused. */
  wouldRefuse: chargesSchema,
  /** Of the charges declined for the size limit, those these limits would have allowed. */
  wouldAllow: chargesSchema,
});

export const limitEffects = ['looser', 'tighter', 'same', 'mixed'] as const;

export const limitImpactSchema = z.object({
  /** The window looked at: the last 90 days, as Unix-ms bounds. */
  from: z.number().int(),
  to: z.number().int(),
  /** Card transactions read in the window. */
  examined: z.number().int().nonnegative(),
  /**
   * The card's charges that went through: money moved or will (settled, pending and disputed
   * card charges: the charges of card spend in `docs/money.md`, before refunds).
   */
  wentThrough: chargesSchema,
  /** The card's charges declined for the transaction-size limit: no money moved. */
  sizeDeclined: chargesSchema,
  /** The card's limits now, side by side with the proposed ones. */
  current: limitsOutcomeSchema,
  /** The query's limits, each one it leaves out being the card's current one. */
  proposed: limitsOutcomeSchema,
  /**
   * The proposed limits against the current ones, charge by charge over both kinds above:
   * `refusedOnlyByProposed` the current limits allow and the proposed refuse,
   * `allowedOnlyByProposed` the other way round.
   */
  refusedOnlyByProposed: chargesSchema,
  allowedOnlyByProposed: chargesSchema,
  /**
   * Follows from those two: `looser` (only some allowed that were refused), `tighter` (only
   * some refused that were allowed), `mixed` (both), `same` (no charge of the window fares
   * differently, even where the limits differ).
   */
  effect: z.enum(limitEffects),
  /**
   * Sub accounts holding the card's transactions in the window, most first: with `cardId`,
   * `from` and `to` (as days in the person's zone), a link to the Transactions screen.
   */
  subAccountIds: z.array(resourceIdSchema).optional(),
});
export type LimitImpact = z.infer<typeof limitImpactSchema>;
export type LimitEffect = (typeof limitEffects)[number];
