import { api } from '../../../lib/api-client';

/** Needs a step-up; 409 `last_factor` when it is the only passkey and TOTP is off. */
export async function removePasskey(id: string): Promise<void> {
  await api('security.removePasskey', { params: { id } });
}
