import { z } from 'zod';

export const roleSchema = z.enum(['finance', 'admin']);
export type Role = z.infer<typeof roleSchema>;

/** GET /api/meta: what the sign-in page may show before anyone is signed in. */
export const metaResponseSchema = z.object({
  mode: z.enum(['demo', 'production']),
  demoAccounts: z
    .array(
      z.object({
        email: z.string(),
        role: roleSchema,
        password: z.string(),
        totpSecret: z.string().optional(),
        otpauthUri: z.string().optional(),
      }),
    )
    .optional(),
});
export type MetaResponse = z.infer<typeof metaResponseSchema>;
