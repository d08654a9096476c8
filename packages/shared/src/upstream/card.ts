import { z } from 'zod';
import { amountSchema, booleanStringSchema, cursorSchema, displayNameSchema } from './common';
import { cardSortFields, cardStatuses, utilizationPresets } from './enums';

export {
  type CardSortField,
  type CardStatus,
  cardSortFields,
  cardStatuses,
  type UtilizationPreset,
  utilizationPresets,
} from './enums';

export const cardStatusSchema = z.enum(cardStatuses);
export const utilizationPresetSchema = z.enum(utilizationPresets);
export const cardSortFieldSchema = z.enum(cardSortFields);
export const sortDirectionSchema = z.enum(['ASC', 'DESC']);

export const utilizationLimitSchema = z.object({
  // A real service may grow new presets; reading must not fail on one.
  preset: z.string().optional(),
  timezone: z.string().optional(),
  limitAmount: amountSchema.optional(),
  startDate: z.string().optional(),
});

export const transactionSizeLimitSchema = z.object({
  minimum: amountSchema.optional(),
  maximum: amountSchema.optional(),
});

export const spendingConstraintSchema = z.object({
  spendingRule: z
    .object({
      utilizationLimit: utilizationLimitSchema.optional(),
      transactionSizeLimit: transactionSizeLimitSchema.optional(),
    })
    .optional(),
});
export type SpendingConstraint = z.infer<typeof spendingConstraintSchema>;

/**
 * A card as the service returns it. Unknown fields are tolerated and dropped (nothing we did
 * not declare travels further; zod's plain objects are also about a quarter cheaper to check
 * than pass-through ones on the read path), optional ones may be missing.
 */
export const upstreamCardSchema = z.object({
  id: z.string().min(1),
  last4: z.string().regex(/^\d{4}$/),
  name: z.string(),
  expiryMonth: z.string().optional(),
  expiryYear: z.string().optional(),
  status: cardStatusSchema,
  createdAt: z.iso.datetime({ offset: true }).optional(),
  spendingConstraint: spendingConstraintSchema.optional(),
  pan: z.string().optional(),
  cvv: z.string().optional(),
});
export type UpstreamCard = z.infer<typeof upstreamCardSchema>;

/** GET /card query. */
export const upstreamCardListQuerySchema = z.strictObject({
  'filter:status': cardStatusSchema.optional(),
  sort: cardSortFieldSchema.optional(),
  sortDirection: sortDirectionSchema.optional(),
  cursor: cursorSchema.optional(),
});
export type UpstreamCardListQuery = z.input<typeof upstreamCardListQuerySchema>;

/** GET /card/{id} query. */
export const upstreamCardReadQuerySchema = z.strictObject({
  include_pan: booleanStringSchema.optional(),
  include_cvv: booleanStringSchema.optional(),
});

const centsAmountInput = z.strictObject({
  amountCents: z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER),
});

/** PATCH /card/{id} body. */
export const upstreamCardPatchBodySchema = z
  .strictObject({
    name: displayNameSchema.optional(),
    spendingConstraint: z
      .strictObject({
        spendingRule: z.strictObject({
          transactionSizeLimit: z
            .strictObject({
              minimum: centsAmountInput.optional(),
              maximum: centsAmountInput.optional(),
            })
            .refine((l) => l.minimum !== undefined || l.maximum !== undefined, {
              message: 'give a minimum, a maximum or both',
            }),
        }),
      })
      .optional(),
  })
  .refine((body) => body.name !== undefined || body.spendingConstraint !== undefined, {
    message: 'at least one of name or spendingConstraint is required',
  });
export type UpstreamCardPatchBody = z.input<typeof upstreamCardPatchBodySchema>;
