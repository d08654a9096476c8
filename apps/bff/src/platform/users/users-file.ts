import { roleSchema } from '@card-console/shared/api/meta';
import { z } from 'zod';
import { isPasswordHash } from './password-hash';

export const base32SecretSchema = z
  .string()
  .regex(/^[A-Z2-7]{16,128}$/, 'must be a base32 TOTP secret (A-Z, 2-7, at least 16 characters)');

/** A provider's subject (`sub`, at most 255 ASCII characters by OIDC Core §2) at its issuer. */
export const ssoLinkSchema = z.strictObject({
  issuer: z.url({ protocol: /^https?$/ }).max(2048),
  subject: z
    .string()
    .min(1)
    .max(255)
    .regex(/^[\x21-\x7e]+$/, 'must be the provider subject (sub) as it sends it'),
});

export const userEntrySchema = z
  .strictObject({
    email: z.string().trim().toLowerCase().pipe(z.email().max(254)),
    role: roleSchema,
    passwordHash: z
      .string()
      .refine(isPasswordHash, 'must be an encoded scrypt hash (scrypt$N$r$p$salt$hash)'),
    totpSecret: base32SecretSchema.optional(),
    /** Set by `pnpm users disable`: may not sign in, and their sessions end. */
    disabled: z.boolean().optional(),
    /**
     * Set by `pnpm users link`: this person also signs in through single sign-on as this
     * subject of this provider. Without it, no single sign-on identity is ever this person.
     */
    sso: ssoLinkSchema.optional(),
  })
  .refine((u) => u.role !== 'admin' || u.totpSecret !== undefined, {
    message: 'an admin needs a totpSecret',
    path: ['totpSecret'],
  });
export type UserEntry = z.infer<typeof userEntrySchema>;

export const usersFileSchema = z.array(userEntrySchema).superRefine((users, ctx) => {
  const seen = new Set<string>();
  users.forEach((user, index) => {
    if (seen.has(user.email)) {
      ctx.addIssue({
        code: 'custom',
        message: `duplicate email ${user.email}`,
        path: [index, 'email'],
      });
    }
    seen.add(user.email);
  });
});
