import { z } from 'zod';
import { cursorSchema } from '../upstream/common';
import { pageSchema } from './error';
import { visibleNameSchema } from './names';

export const subAccountSchema = z.object({
  id: z.string(),
  name: z.string(),
  balanceCents: z.number().int().optional(),
  spendCents: z.number().int().optional(),
});
export type SubAccount = z.infer<typeof subAccountSchema>;

export const subAccountListQuerySchema = z.strictObject({ cursor: cursorSchema.optional() });
export type SubAccountListQuery = z.input<typeof subAccountListQuerySchema>;
export const subAccountPageSchema = pageSchema(subAccountSchema);
export type SubAccountPage = z.infer<typeof subAccountPageSchema>;

/**
 * Sub-account names are unique without regard to case, white space at either end, or
 * compatibility forms (a full-width "Ｍarketing" is "Marketing"): two names with the same key
 * cannot be told apart in a list. Upper then lower case folds what lower case alone does not
 * ("Straße" and "STRASSE").
 */
export function subAccountNameKey(name: string): string {
  return name.trim().normalize('NFKC').toUpperCase().toLowerCase();
}

export const subAccountCreateBodySchema = z.strictObject({ name: visibleNameSchema });
export type SubAccountCreateBody = z.input<typeof subAccountCreateBodySchema>;
export const subAccountCreatedSchema = z.object({ id: z.string(), name: z.string() });
export type SubAccountCreated = z.infer<typeof subAccountCreatedSchema>;
