import { api } from '../../../lib/api-client';

/** Turns authenticator-app codes off (only while a passkey exists) or back on; needs a step-up. */
export function setTotpEnabled(enabled: boolean) {
  return api('security.setTotp', { body: { enabled } });
}
