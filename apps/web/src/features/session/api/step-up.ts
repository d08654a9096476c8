import type { SessionResponse, StepUpBody } from '@card-console/shared/api/session';
import { apiJson } from '../../../lib/api-client';

/** A second-factor check on its own (before changing second factors); renews the step-up. */
export function stepUp(body: StepUpBody) {
  return apiJson<SessionResponse>('/api/session/step-up', { method: 'POST', body });
}
