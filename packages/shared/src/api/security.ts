// Passkeys (WebAuthn) and the second factors an admin holds. The WebAuthn JSON shapes are the
// ones @simplewebauthn/browser produces and @simplewebauthn/server verifies (base64url
// strings); they are checked here for shape and size only, the signature is the server's job.
import { z } from 'zod';
import { visibleNameSchema } from './names';

const base64url = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .regex(/^[A-Za-z0-9_-]+$/, 'must be base64url');

const transports = z
  .array(z.enum(['ble', 'cable', 'hybrid', 'internal', 'nfc', 'smart-card', 'usb']))
  .max(8);

/** What `startAuthentication` returns: a passkey's signature over a challenge. */
export const passkeyAssertionSchema = z.object({
  id: base64url(1024),
  rawId: base64url(1024),
  type: z.literal('public-key'),
  response: z.object({
    clientDataJSON: base64url(4096),
    authenticatorData: base64url(4096),
    signature: base64url(1024),
    userHandle: base64url(256).optional(),
  }),
  clientExtensionResults: z.record(z.string(), z.unknown()),
  authenticatorAttachment: z.enum(['platform', 'cross-platform']).optional(),
});
export type PasskeyAssertion = z.infer<typeof passkeyAssertionSchema>;

/** What `startRegistration` returns: a new passkey's public key, attested. */
export const passkeyAttestationSchema = z.object({
  id: base64url(1024),
  rawId: base64url(1024),
  type: z.literal('public-key'),
  response: z.object({
    clientDataJSON: base64url(4096),
    attestationObject: base64url(16_384),
    authenticatorData: base64url(4096).optional(),
    transports: transports.optional(),
    publicKeyAlgorithm: z.number().int().optional(),
    publicKey: base64url(4096).optional(),
  }),
  clientExtensionResults: z.record(z.string(), z.unknown()),
  authenticatorAttachment: z.enum(['platform', 'cross-platform']).optional(),
});
export type PasskeyAttestation = z.infer<typeof passkeyAttestationSchema>;

/**
 * A passkey's name: at most 64 characters, then the rules of every name a person gives (a
 * card's, a sub account's): no control characters (line breaks, NUL…), no text-direction
 * controls, something visible. Card numbers are the BFF's to refuse (its matcher lives there).
 */
export const passkeyNameSchema = z
  .string()
  .trim()
  .min(1, 'give the passkey a name')
  .max(64, 'at most 64 characters')
  .pipe(visibleNameSchema);

/** POST /api/passkeys: a passkey made with the options from /api/passkeys/registration-options. */
export const passkeyEnrolBodySchema = z.strictObject({
  name: passkeyNameSchema,
  response: passkeyAttestationSchema,
});
export type PasskeyEnrolBody = z.input<typeof passkeyEnrolBodySchema>;

/** PATCH /api/passkeys/:id */
export const passkeyRenameBodySchema = z.strictObject({ name: passkeyNameSchema });

/** PATCH /api/second-factors/totp: TOTP off (only while a passkey is enrolled) or back on. */
export const totpSettingBodySchema = z.strictObject({ enabled: z.boolean() });

/**
 * POST /api/second-factors/totp/setup: a new authenticator-app secret, pending for this session
 * for 10 minutes until a code from it is confirmed. The secret is shared with the person by
 * design (they type it or scan it into their app): this answer is the only place it appears.
 */
export const totpSetupResponseSchema = z.object({
  /** Base32, as authenticator apps take it when typed. */
  secret: z.string().regex(/^[A-Z2-7]+$/),
  /** `otpauth://totp/...`: what a QR code or an "open in app" link holds. */
  uri: z.string().startsWith('otpauth://totp/'),
  /** Unix ms: when the pending setup is forgotten. */
  expiresAt: z.number().int(),
});
export type TotpSetupResponse = z.infer<typeof totpSetupResponseSchema>;

/** POST /api/second-factors/totp: a code from the app, confirming the pending secret. */
export const totpConfirmBodySchema = z.strictObject({
  code: z
    .string()
    .trim()
    .regex(/^\d{6}$/, 'the 6-digit code your authenticator app shows'),
});
export type TotpConfirmBody = z.input<typeof totpConfirmBodySchema>;

export const passkeyIdSchema = z.string().regex(/^[A-Za-z0-9_-]{1,1024}$/, 'must be a passkey id');

export const passkeySummarySchema = z.object({
  id: z.string(),
  name: z.string(),
  /** Unix ms. */
  createdAt: z.number().int(),
  lastUsedAt: z.number().int().optional(),
});
export type PasskeySummary = z.infer<typeof passkeySummarySchema>;

/** GET /api/second-factors: what the signed-in admin can prove themselves with. */
export const secondFactorsResponseSchema = z.object({
  passkeys: z.array(passkeySummarySchema),
  totp: z.object({
    /** The person has a TOTP secret (local accounts; SSO people have none). */
    available: z.boolean(),
    /** TOTP codes are accepted (a person may turn them off once a passkey is enrolled). */
    enabled: z.boolean(),
  }),
});
export type SecondFactorsResponse = z.infer<typeof secondFactorsResponseSchema>;

/**
 * The options handed to `startAuthentication` / `startRegistration` (WebAuthn's own JSON,
 * passed through as the server made it).
 */
export const passkeyOptionsSchema = z.object({ challenge: z.string() }).loose();
export type PasskeyOptions = z.infer<typeof passkeyOptionsSchema>;
