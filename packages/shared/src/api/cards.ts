import { z } from 'zod';
import { CARD_SEARCH_MAX, cardListSorts } from '../index-vocabulary';
import { cardStatusSchema } from '../upstream/card';
import { cursorSchema } from '../upstream/common';
import { cardOwnershipFields, ownershipFilterNameSchema } from './card-owners';
import { pageSchema, problemExtensionSchemas } from './error';
import { holdsSecurityCode, visibleNameSchema } from './names';
import { passkeyAssertionSchema } from './security';
import { totpCodeSchema } from './session';

const centsSchema = z.number().int();

/** A card as the browser sees it: never a PAN or CVV. */
export const cardSchema = z.object({
  id: z.string(),
  last4: z.string(),
  name: z.string(),
  expiryMonth: z.string().optional(),
  expiryYear: z.string().optional(),
  status: cardStatusSchema,
  createdAt: z.string().optional(),
  utilizationLimit: z
    .object({
      preset: z.string().optional(),
      timezone: z.string().optional(),
      limitCents: centsSchema.optional(),
      startDate: z.string().optional(),
    })
    .optional(),
  transactionSizeLimit: z.object({
    minimumCents: centsSchema.optional(),
    maximumCents: centsSchema.optional(),
  }),
  /** Card Console's, not the card service's (`card-owners.ts`). */
  ...cardOwnershipFields,
});
export type Card = z.infer<typeof cardSchema>;

/**
 * What a person typed to find a card: part of its name or of its last four, in any case.
 * Trimmed; nothing left is no search.
 */
export const cardSearchSchema = z
  .string()
  .max(CARD_SEARCH_MAX, `must be at most ${CARD_SEARCH_MAX} characters`)
  .trim()
  .transform((q) => q || undefined);

/** The cards list's orders: the card service's, and spend and utilisation from the index. */
export const cardListSortSchema = z.enum(cardListSorts);

/**
 * GET /api/cards. With a search (`q`) or a sort by spend or utilisation the list is the BFF's
 * card directory's (every card, at most a minute old) and its cursors are the BFF's own;
 * otherwise the card service's pages, passed on.
 */
export const cardListQuerySchema = z.strictObject({
  q: cardSearchSchema.optional(),
  status: cardStatusSchema.optional(),
  sort: cardListSortSchema.optional(),
  direction: z.enum(['asc', 'desc']).optional(),
  cursor: cursorSchema.optional(),
  /** The cards of this owner, or of this team, by name (in any case): from the directory. */
  owner: ownershipFilterNameSchema.optional(),
  team: ownershipFilterNameSchema.optional(),
});
export type CardListQuery = z.input<typeof cardListQuerySchema>;
export const cardPageSchema = pageSchema(cardSchema);
export type CardPage = z.infer<typeof cardPageSchema>;

const limitCentsSchema = z.number().int().nonnegative().max(100_000_000_00);

/**
 * A maximum per transaction at or above this ($50,000.00) is allowed but gets a second look:
 * the card editor warns before the change is reviewed, as it does for a $0 maximum. The default
 * threshold: a deployment sets its own (LIMIT_WARNING_MAXIMUM_USD), which the session carries.
 */
export const LARGE_MAXIMUM_CENTS = 50_000_00;

/** A card's editable values now, as a 409 `card_changed` carries them (`null`: no such limit). */
export const cardValuesSchema = problemExtensionSchemas.card_changed.shape.current;
export type CardValues = z.infer<typeof cardValuesSchema>;

/**
 * What the person saw before changing it (`null`: no such limit). Every value given is
 * compared with the card as it is when the change is applied; a difference is a 409
 * `card_changed` and nothing is saved.
 */
export const cardSeenValuesSchema = z.strictObject({
  name: z.string().max(1_000).optional(),
  minimumCents: centsSchema.nullable().optional(),
  maximumCents: centsSchema.nullable().optional(),
});
export type CardSeenValues = z.infer<typeof cardSeenValuesSchema>;

/** A change must say what it replaces: each value it changes needs its `expected` value. */
const seenFieldsOfChange = [
  ['name', 'name'],
  ['minimumCents', 'minimum'],
  ['maximumCents', 'maximum'],
] as const;

/** PATCH /api/cards/:id */
export const cardPatchBodySchema = z
  .strictObject({
    expected: cardSeenValuesSchema.optional(),
    name: visibleNameSchema.optional(),
    transactionSizeLimit: z
      .strictObject({
        minimumCents: limitCentsSchema.optional(),
        maximumCents: limitCentsSchema.optional(),
      })
      .refine((l) => l.minimumCents !== undefined || l.maximumCents !== undefined, {
        message: 'give a minimum, a maximum or both',
      })
      .refine(
        (l) =>
          l.minimumCents === undefined ||
          l.maximumCents === undefined ||
          l.minimumCents <= l.maximumCents,
        { message: 'the minimum must not be above the maximum', path: ['minimumCents'] },
      )
      .optional(),
  })
  .refine((b) => b.name !== undefined || b.transactionSizeLimit !== undefined, {
    message: 'nothing to change',
  })
  .superRefine((b, ctx) => {
    const changes = { name: b.name, ...b.transactionSizeLimit };
    for (const [field, what] of seenFieldsOfChange) {
      if (changes[field] !== undefined && b.expected?.[field] === undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['expected', field],
          message: `give the ${what} you saw before changing it (null for none)`,
        });
      }
    }
  });
export type CardPatchBody = z.input<typeof cardPatchBodySchema>;

/** POST /api/cards/:id/reveal */
export const revealBodySchema = z.strictObject({
  reason: z
    .string()
    .trim()
    .min(3, 'give a reason of at least 3 characters')
    .max(500)
    .refine(
      (reason) => !holdsSecurityCode(reason),
      'must not hold the card’s security code: the reason is kept in the audit trail',
    ),
  totp: totpCodeSchema.optional(),
  /** A passkey's assertion over the step-up challenge (POST /api/session/step-up-options). */
  passkey: passkeyAssertionSchema.optional(),
});
export type RevealBody = z.input<typeof revealBodySchema>;

export const revealResponseSchema = z.object({
  cardId: z.string(),
  last4: z.string(),
  pan: z.string(),
  cvv: z.string(),
  expiryMonth: z.string().optional(),
  expiryYear: z.string().optional(),
});
export type RevealResponse = z.infer<typeof revealResponseSchema>;
