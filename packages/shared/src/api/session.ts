import { z } from 'zod';
import { roleSchema } from './meta';

export const totpCodeSchema = z.string().regex(/^\d{6}$/, 'must be a 6-digit code');

/** POST /api/session */
export const signInBodySchema = z.strictObject({
  email: z.string().trim().toLowerCase().pipe(z.email().max(254)),
  password: z.string().min(1).max(256),
  totp: totpCodeSchema.optional(),
});
export type SignInBody = z.input<typeof signInBodySchema>;

/** GET /api/session (and the answer to a sign-in). */
export const sessionResponseSchema = z.object({
  email: z.string(),
  role: roleSchema,
  /** Unix ms until which a reveal needs no new second-factor code; absent when lapsed. */
  stepUpUntil: z.number().int().optional(),
  /** Unix ms when the session ends unless used. */
  idleExpiresAt: z.number().int(),
  /** Unix ms when the session ends whatever happens. */
  absoluteExpiresAt: z.number().int(),
});
export type SessionResponse = z.infer<typeof sessionResponseSchema>;
