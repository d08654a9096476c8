import type { SignOutResponse } from '@card-console/shared/api/session';
import { apiRequest } from '../../../lib/api-client';
import { forgetSignedIn } from '../session-ended';

/** Ends the session; under SSO the answer says where to end the provider's session too. */
export async function signOut(): Promise<SignOutResponse> {
  const response = await apiRequest('/api/session', { method: 'DELETE' });
  forgetSignedIn();
  if (response.status === 204) return {};
  return ((await response.json().catch(() => undefined)) ?? {}) as SignOutResponse;
}
