import { api } from '../../../lib/api-client';

/** Requires a second factor of everyone, or of admins only; needs a step-up. */
export function updateSecurityPolicy(requireSecondFactor: boolean) {
  return api('securityPolicy.update', { body: { requireSecondFactor } });
}
