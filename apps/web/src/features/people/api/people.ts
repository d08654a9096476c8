import type {
  InvitationCreated,
  InvitationInput,
  PeopleList,
  PersonView,
  RoleChange,
  SessionList,
} from '@card-console/shared/api/people';
import { PEOPLE_API } from '@card-console/shared/api/people';
import { queryOptions } from '@tanstack/react-query';
import { apiJson, apiRequest } from '../../../lib/api-client';

/** Everyone who may sign in, and the invitations not yet taken up. */
export function peopleQueryOptions() {
  return queryOptions({
    queryKey: ['people'] as const,
    queryFn: ({ signal }) => apiJson<PeopleList>(PEOPLE_API.people, { signal }),
  });
}

/** One person's open sessions (asked for when their Sessions panel opens). */
export function personSessionsQueryOptions(email: string) {
  return queryOptions({
    queryKey: ['people', 'sessions', email] as const,
    queryFn: ({ signal }) => apiJson<SessionList>(PEOPLE_API.sessions(email), { signal }),
  });
}

export function createInvitation(body: InvitationInput) {
  return apiJson<InvitationCreated>(PEOPLE_API.invitations, { method: 'POST', body });
}

export async function withdrawInvitation(email: string) {
  await apiRequest(PEOPLE_API.invitation(email), { method: 'DELETE' });
}

export function changeRole(email: string, body: RoleChange) {
  return apiJson<PersonView>(PEOPLE_API.role(email), { method: 'PUT', body });
}

export function setDisabled(email: string, disabled: boolean) {
  return apiJson<PersonView>(disabled ? PEOPLE_API.disable(email) : PEOPLE_API.enable(email), {
    method: 'POST',
  });
}

export async function removePerson(email: string) {
  await apiRequest(PEOPLE_API.person(email), { method: 'DELETE' });
}

export async function endSession(email: string, id: string) {
  await apiRequest(PEOPLE_API.session(email, id), { method: 'DELETE' });
}

export async function endAllSessions(email: string) {
  await apiRequest(PEOPLE_API.sessions(email), { method: 'DELETE' });
}
