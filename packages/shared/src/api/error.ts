import { z } from 'zod';

/** Every error the BFF answers with. */
export const apiErrorBodySchema = z.object({
  status: z.number().int().min(400).max(599),
  code: z.string().min(1),
  message: z.string(),
  requestId: z.string(),
  /** Seconds until a retry makes sense, on 429 and 503. */
  retryAfterSeconds: z.number().int().nonnegative().optional(),
  /**
   * On 401 `second_factor_required` (and the step-up refusals): which second factors the
   * person may use, and for a passkey the options to hand to the browser.
   */
  secondFactor: z
    .object({
      methods: z.array(z.enum(['totp', 'passkey', 'provider'])),
      passkeyOptions: z.object({ challenge: z.string() }).loose().optional(),
    })
    .optional(),
  /** On 409 `card_changed`: the card's editable values now (`null`: the card has no such limit). */
  current: z
    .object({
      name: z.string(),
      minimumCents: z.number().int().nullable(),
      maximumCents: z.number().int().nullable(),
    })
    .optional(),
});
export type ApiErrorBody = z.infer<typeof apiErrorBodySchema>;

/** A page as the BFF returns it. */
export function pageSchema<T extends z.ZodType>(item: T) {
  return z.object({ items: z.array(item), nextCursor: z.string().optional() });
}
