import { z } from 'zod';
import { cursorProblem, resourceIdProblem } from './ids';

/** Money on the wire: integer cents. */
export const amountSchema = z.object({ amountCents: z.number().int() });

/**
 * The service's error body. A real service may add fields: they are tolerated and dropped;
 * the BFF never relies on more than these three.
 */
export const errorBodySchema = z.object({
  status: z.number().int(),
  code: z.string(),
  message: z.string(),
});
export type ErrorBody = z.infer<typeof errorBodySchema>;

export const listMetadataSchema = z.object({
  nextCursor: z.string().min(1).optional(),
  count: z.number().int().nonnegative().optional(),
});

/** The list envelope every list endpoint returns. */
export function listEnvelopeSchema<T extends z.ZodType>(item: T) {
  return z.object({
    items: z.array(item),
    metadata: listMetadataSchema,
  });
}
export type ListEnvelope<T> = {
  items: T[];
  metadata: { nextCursor?: string; count?: number };
};

/** Ids are opaque to us: any string a URL can carry and a person can copy (`ids.ts`). */
export const resourceIdSchema = z.string().check((ctx) => {
  const problem = resourceIdProblem(ctx.value);
  if (problem) ctx.issues.push({ code: 'custom', message: problem, input: ctx.value });
});

/** Cursors are opaque tokens issued by the service, passed on as they are (`ids.ts`). */
export const cursorSchema = z.string().check((ctx) => {
  const problem = cursorProblem(ctx.value);
  if (problem) ctx.issues.push({ code: 'custom', message: problem, input: ctx.value });
});

/** A name a person typed: trimmed, 1-100 characters, no control characters or lone surrogates. */
export const displayNameSchema = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(100, 'must be at most 100 characters')
  .refine((value) => !/[\p{Cc}\p{Cs}]/u.test(value), 'must not contain control characters');

/** A Unix-millisecond timestamp as it travels in a query string. */
export const unixMsStringSchema = z
  .string()
  .regex(/^\d{1,15}$/, 'must be a Unix timestamp in milliseconds')
  .transform(Number)
  .pipe(z.number().int().nonnegative().max(8_640_000_000_000_000));

export const booleanStringSchema = z.enum(['true', 'false']).transform((value) => value === 'true');
