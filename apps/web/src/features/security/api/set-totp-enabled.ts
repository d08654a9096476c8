import type { SecondFactorsResponse } from '@card-console/shared/api/passkeys';
import { apiJson } from '../../../lib/api-client';

/** Turns authenticator-app codes off (only while a passkey exists) or back on; needs a step-up. */
export function setTotpEnabled(enabled: boolean) {
  return apiJson<SecondFactorsResponse>('/api/second-factors/totp', {
    method: 'PATCH',
    body: { enabled },
  });
}
