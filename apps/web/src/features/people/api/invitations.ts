import type {
  AcceptInvitation,
  InvitationAuthenticator,
  InvitationView,
} from '@card-console/shared/api/people';
import { apiJson } from '../../../lib/api-client';

// Path literals rather than PEOPLE_API: that module holds the zod schemas, and the join page
// needs them only to check what was typed.

/** What an invitation link is for (no session: the token is the proof, in the body). */
export function lookupInvitation(token: string, signal?: AbortSignal) {
  return apiJson<InvitationView>('/api/invitations/lookup', {
    method: 'POST',
    body: { token },
    signal,
  });
}

/**
 * A new secret for the invitee's authenticator, made by the server and bound to the invitation:
 * shown once; asked again, a new one replaces it.
 */
export function invitationAuthenticator(token: string, signal?: AbortSignal) {
  return apiJson<InvitationAuthenticator>('/api/invitations/authenticator', {
    method: 'POST',
    body: { token },
    signal,
  });
}

/** Takes the invitation up: the person exists from here on and signs in as usual. */
export function acceptInvitation(body: AcceptInvitation) {
  return apiJson<{ email: string }>('/api/invitations/accept', { method: 'POST', body });
}
