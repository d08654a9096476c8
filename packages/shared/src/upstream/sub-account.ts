import { z } from 'zod';
import { amountSchema, cursorSchema, displayNameSchema } from './common';

/** A sub account as the list returns it; balance and spend appear in the list only. */
export const upstreamSubAccountSchema = z.object({
  id: z.string().min(1),
  name: z.string(),
  balance: amountSchema.optional(),
  spend: amountSchema.optional(),
});
export type UpstreamSubAccount = z.infer<typeof upstreamSubAccountSchema>;

/** What POST /sub-account returns: only id and name. */
export const upstreamSubAccountCreatedSchema = z.object({
  id: z.string().min(1),
  name: z.string(),
});

export const upstreamSubAccountListQuerySchema = z.strictObject({
  cursor: cursorSchema.optional(),
});

export const subAccountNameSchema = displayNameSchema;

export const upstreamSubAccountCreateBodySchema = z.strictObject({
  name: subAccountNameSchema,
});
