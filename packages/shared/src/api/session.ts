import { z } from 'zod';
import { roleSchema } from './meta';
import { passkeyAssertionSchema } from './security';

export const totpCodeSchema = z.string().regex(/^\d{6}$/, 'must be a 6-digit code');

/**
 * POST /api/session. An admin, or anyone with a second factor set up, adds it: a TOTP code or a passkey's assertion
 * (made with the options the 401 `second_factor_required` carried), never both.
 */
export const signInBodySchema = z
  .strictObject({
    email: z.string().trim().toLowerCase().pipe(z.email().max(254)),
    password: z.string().min(1).max(256),
    totp: totpCodeSchema.optional(),
    passkey: passkeyAssertionSchema.optional(),
  })
  .refine((b) => b.totp === undefined || b.passkey === undefined, {
    message: 'give a code or a passkey, not both',
    path: ['passkey'],
  });
export type SignInBody = z.input<typeof signInBodySchema>;

/** How a session was signed in. */
export const signInMethodSchema = z.enum(['password', 'sso']);
export type SignInMethod = z.infer<typeof signInMethodSchema>;

/**
 * The ways a person can pass a step-up: a TOTP code, a passkey, or a fresh sign-in at the
 * company's identity provider (`provider`, SSO sessions).
 */
export const stepUpMethodSchema = z.enum(['totp', 'passkey', 'provider']);
export type StepUpMethod = z.infer<typeof stepUpMethodSchema>;

/** POST /api/session/step-up: a second-factor check on its own (before enrolling a passkey). */
export const stepUpBodySchema = z
  .strictObject({
    totp: totpCodeSchema.optional(),
    passkey: passkeyAssertionSchema.optional(),
  })
  .refine((b) => (b.totp === undefined) !== (b.passkey === undefined), {
    message: 'give a code or a passkey',
    path: ['totp'],
  });
export type StepUpBody = z.input<typeof stepUpBodySchema>;

/** GET /api/session (and the answer to a sign-in). */
export const sessionResponseSchema = z.object({
  email: z.string(),
  role: roleSchema,
  method: signInMethodSchema,
  /** Unix ms until which a reveal needs no new second-factor check; absent when lapsed. */
  stepUpUntil: z.number().int().optional(),
  /** What this person can step up with now: their own second factors (empty while they have none). */
  stepUpMethods: z.array(stepUpMethodSchema),
  /**
   * The organisation requires a second factor and this person has none yet: until they set one
   * up, this session may only do that (every other call answers 403
   * `second_factor_enrolment_required`). Absent otherwise.
   */
  secondFactorEnrolmentRequired: z.literal(true).optional(),
  /** Unix ms when the session ends unless used. */
  idleExpiresAt: z.number().int(),
  /** Unix ms when the session ends whatever happens. */
  absoluteExpiresAt: z.number().int(),
  /**
   * A maximum per transaction at or above this gets a second look in the card editor: this
   * deployment's threshold (LIMIT_WARNING_MAXIMUM_USD), in cents.
   */
  largeMaximumCents: z.number().int().positive(),
});
export type SessionResponse = z.infer<typeof sessionResponseSchema>;

/** DELETE /api/session: where to go to end the identity provider's session too (SSO). */
export const signOutResponseSchema = z.object({ providerLogoutUrl: z.string().optional() });
export type SignOutResponse = z.infer<typeof signOutResponseSchema>;

/**
 * Where single sign-on comes back to: a path of the app, kept with the pending sign-in, so
 * short. A longer one (no screen of the app needs it) comes back to the start page instead.
 */
export const RETURN_TO_MAX = 512;

/** GET /api/sso/start and /api/sso/step-up (navigations): where to come back to. */
export const ssoReturnQuerySchema = z.strictObject({
  returnTo: z.string().max(RETURN_TO_MAX).optional(),
});

/** GET /api/sso/callback (a navigation): what the BFF reads itself; the library reads the URL again. */
export const ssoCallbackQuerySchema = z.looseObject({
  state: z.string().min(1).max(512).optional(),
  code: z.string().min(1).max(4096).optional(),
  error: z
    .string()
    .max(100)
    .regex(/^[\w.-]*$/)
    .optional(),
});
