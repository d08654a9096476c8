import type { PasskeyEnrolBody } from '@card-console/shared/api/security';
import { api } from '../../../lib/api-client';

/** Enrols the passkey the browser just made (409 `passkey_exists`, `too_many_passkeys`). */
export function addPasskey(body: PasskeyEnrolBody) {
  return api('security.addPasskey', { body });
}
