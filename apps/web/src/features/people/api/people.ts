import type { InvitationInput, RoleChange } from '@card-console/shared/api/people';
import { queryOptions } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';

/** Everyone who may sign in, and the invitations not yet taken up. */
export function peopleQueryOptions() {
  return queryOptions({
    queryKey: ['people'] as const,
    queryFn: ({ signal }) => api('people.list', { signal }),
  });
}

/** One person's open sessions (asked for when their Sessions panel opens). */
export function personSessionsQueryOptions(email: string) {
  return queryOptions({
    queryKey: ['people', 'sessions', email] as const,
    queryFn: ({ signal }) => api('people.sessions', { params: { email }, signal }),
  });
}

export function createInvitation(body: InvitationInput) {
  return api('people.invite', { body });
}

export async function withdrawInvitation(email: string) {
  await api('people.cancelInvitation', { params: { email } });
}

export function changeRole(email: string, body: RoleChange) {
  return api('people.setRole', { params: { email }, body });
}

export function setDisabled(email: string, disabled: boolean) {
  return disabled
    ? api('people.disable', { params: { email } })
    : api('people.enable', { params: { email } });
}

export async function removePerson(email: string) {
  await api('people.remove', { params: { email } });
}

export async function endSession(email: string, id: string) {
  await api('people.endSession', { params: { email, id } });
}

export async function endAllSessions(email: string) {
  await api('people.endSessions', { params: { email } });
}
