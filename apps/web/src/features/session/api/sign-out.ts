import type { SignOutResponse } from '@card-console/shared/api/session';
import { api } from '../../../lib/api-client';
import { ApiError } from '../../../lib/api-error';
import { forgetSignedIn } from '../session-ended';

/**
 * Ends the session; under SSO the answer says where to end the provider's session too. An
 * answer this page cannot read still came with a success status: the session is over, and the
 * tab forgets it as after any other sign-out.
 */
export async function signOut(): Promise<SignOutResponse> {
  try {
    const answer = await api('session.signOut');
    forgetSignedIn();
    return answer ?? {};
  } catch (error) {
    if (!(error instanceof ApiError) || error.code !== 'invalid_response') throw error;
    forgetSignedIn();
    return {};
  }
}
