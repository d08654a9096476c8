import type { AcceptInvitation } from '@card-console/shared/api/people';
import { api } from '../../../lib/api-client';

/** What an invitation link is for (no session: the token is the proof, in the body). */
export function lookupInvitation(token: string, signal?: AbortSignal) {
  return api('invitations.lookup', { body: { token }, signal });
}

/**
 * A new secret for the invitee's authenticator, made by the server and bound to the invitation:
 * shown once; asked again, a new one replaces it.
 */
export function invitationAuthenticator(token: string, signal?: AbortSignal) {
  return api('invitations.authenticator', { body: { token }, signal });
}

/** Takes the invitation up: the person exists from here on and signs in as usual. */
export function acceptInvitation(body: AcceptInvitation) {
  return api('invitations.accept', { body });
}
