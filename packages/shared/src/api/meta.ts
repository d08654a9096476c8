import { z } from 'zod';

export const roleSchema = z.enum(['finance', 'admin']);
export type Role = z.infer<typeof roleSchema>;

/** GET /api/meta: what the sign-in page may show before anyone is signed in. */
export const metaResponseSchema = z.object({
  mode: z.enum(['demo', 'production']),
  /** Email and password sign-in (the users file) is on. */
  passwordSignIn: z.boolean(),
  /** Single sign-on through the company's OpenID Provider is on: `GET /api/sso/start`. */
  sso: z.object({ label: z.string() }).optional(),
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

/**
 * GET /api/meta/demo-admin-code, demo mode only: the demo admin's second-factor code of this
 * moment and how long it stays current, so trying the demo needs no authenticator app. Never
 * the secret it comes from.
 */
export const demoAdminCodeResponseSchema = z.object({
  code: z.string().regex(/^\d{6}$/),
  /** Whole seconds until the next code, 1 to 30. */
  secondsLeft: z.number().int().min(1).max(30),
});
export type DemoAdminCodeResponse = z.infer<typeof demoAdminCodeResponseSchema>;
