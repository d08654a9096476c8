import { api } from '../../../lib/api-client';

/**
 * A fresh challenge for this person's passkeys, for a step-up (a reveal or /step-up). Not a
 * query: each challenge is used once. 409 `no_passkeys` when the person has none.
 */
export function fetchStepUpOptions() {
  return api('session.stepUpOptions');
}
