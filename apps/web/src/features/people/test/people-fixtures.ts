import type { OpenInvitation, PeopleList, PersonView } from '@card-console/shared/api/people';
import { HttpResponse } from 'msw';

export function person(overrides: Partial<PersonView> = {}): PersonView {
  return {
    email: 'someone@example.test',
    role: 'finance',
    disabled: false,
    source: 'file',
    pending: false,
    hasTotp: false,
    createdAt: '2026-03-01T09:00:00Z',
    activeSessions: 0,
    you: false,
    ...overrides,
  };
}

export function invitation(overrides: Partial<OpenInvitation> = {}): OpenInvitation {
  return {
    email: 'new@example.test',
    role: 'finance',
    invitedBy: 'admin@example.test',
    expiresAt: '2026-12-04T09:00:00Z',
    ...overrides,
  };
}

/** The caller (an admin from the users file), a finance person and one from single sign-on. */
export const somePeople: PeopleList = {
  people: [
    person({
      email: 'admin@example.test',
      role: 'admin',
      you: true,
      hasTotp: true,
      activeSessions: 2,
      lastSignIn: { at: '2026-11-27T08:00:00Z', method: 'passkey' },
    }),
    person({
      email: 'fin@example.test',
      source: 'invited',
      activeSessions: 1,
      lastSignIn: { at: '2026-11-26T17:30:00Z', method: 'password' },
    }),
    person({ email: 'sso@example.test', role: 'admin', source: 'sso', disabled: true }),
    person({ email: 'later@example.test', source: 'invited', pending: true }),
  ],
  invitations: [invitation({ email: 'later@example.test' })],
};

/**
 * A problem as the BFF sends it, written out: its codes for people may be newer than the list
 * this build's parse knows, and the screen must say the same either way.
 */
export function problem(status: number, code: string, detail: string, extra: object = {}) {
  return HttpResponse.json(
    {
      type: `/problems/${code}`,
      title: code,
      status,
      code,
      detail,
      requestId: `req-${code}`,
      ...extra,
    },
    { status, headers: { 'Content-Type': 'application/problem+json' } },
  );
}
