import { roleSchema } from '@card-console/shared/api/meta';
import { z } from 'zod';
import { isPasswordHash } from './password-hash';

export const base32SecretSchema = z
  .string()
  .regex(/^[A-Z2-7]{16,128}$/, 'must be a base32 TOTP secret (A-Z, 2-7, at least 16 characters)');

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
