import type { StepUpBody } from '@card-console/shared/api/session';
import { api } from '../../../lib/api-client';

/** A second-factor check on its own (before changing second factors); renews the step-up. */
export function stepUp(body: StepUpBody) {
  return api('session.stepUp', { body });
}
