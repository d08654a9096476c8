import type { TotpConfirmBody } from '@card-console/shared/api/security';
import { api } from '../../../lib/api-client';

/**
 * A new authenticator-app secret and its otpauth:// link, pending on the server for 10 minutes
 * (needs a step-up, or for a first factor a recent sign-in).
 */
export function startTotpSetup() {
  return api('security.totpSetup');
}

/** Confirms the pending secret with a code from the app (422 `invalid_totp`, 409 `no_totp_setup`). */
export function confirmTotp(body: TotpConfirmBody) {
  return api('security.confirmTotp', { body });
}
