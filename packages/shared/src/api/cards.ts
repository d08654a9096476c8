import { z } from 'zod';
import { cardSortFieldSchema, cardStatusSchema } from '../upstream/card';
import { cursorSchema } from '../upstream/common';
import { pageSchema } from './error';
import { visibleNameSchema } from './names';
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
});
export type Card = z.infer<typeof cardSchema>;

export const cardListQuerySchema = z.strictObject({
  status: cardStatusSchema.optional(),
  sort: cardSortFieldSchema.optional(),
  direction: z.enum(['asc', 'desc']).optional(),
  cursor: cursorSchema.optional(),
});
export type CardListQuery = z.input<typeof cardListQuerySchema>;
export const cardPageSchema = pageSchema(cardSchema);
export type CardPage = z.infer<typeof cardPageSchema>;

const limitCentsSchema = z.number().int().nonnegative().max(100_000_000_00);

/** PATCH /api/cards/:id */
export const cardPatchBodySchema = z
  .strictObject({
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
  });
export type CardPatchBody = z.input<typeof cardPatchBodySchema>;

/** POST /api/cards/:id/reveal */
export const revealBodySchema = z.strictObject({
  reason: z.string().trim().min(3, 'give a reason of at least 3 characters').max(500),
  totp: totpCodeSchema.optional(),
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
