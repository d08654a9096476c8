import type { PasskeyEnrolBody, PasskeySummary } from '@card-console/shared/api/passkeys';
import { apiJson } from '../../../lib/api-client';

/** Enrols the passkey the browser just made (409 `passkey_exists`, `too_many_passkeys`). */
export function addPasskey(body: PasskeyEnrolBody) {
  return apiJson<PasskeySummary>('/api/passkeys', { method: 'POST', body });
}
