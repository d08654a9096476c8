import { api } from '../../../lib/api-client';

/**
 * A fresh challenge for making a new passkey. Not a query: each is used once. Needs a step-up
 * within the last 5 minutes, else 401 `step_up_required` with the ways to give one.
 */
export function fetchRegistrationOptions() {
  return api('security.registrationOptions');
}
