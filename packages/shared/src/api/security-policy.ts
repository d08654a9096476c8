// The security policy admins set (issue 48, decision 0120): whether everyone must have a second
// factor. While it is on, a person without one who signs in with a password may only set one up
// (`second_factor_enrolment_required` answers everything else) until they have.
import { z } from 'zod';

/** GET /api/security-policy: the policy in force (off until an admin turns it on). */
export const securityPolicySchema = z.object({
  /** Everyone must have a second factor (admins always must). */
  requireSecondFactor: z.boolean(),
  /** Who set it and when (ISO 8601); absent while it is the default. */
  updatedBy: z.string().optional(),
  updatedAt: z.string().optional(),
});
export type SecurityPolicy = z.infer<typeof securityPolicySchema>;

/** PUT /api/security-policy: the policy as it is to be. */
export const securityPolicyUpdateSchema = z.strictObject({ requireSecondFactor: z.boolean() });
export type SecurityPolicyUpdate = z.infer<typeof securityPolicyUpdateSchema>;
