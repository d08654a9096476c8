import {
  acceptInvitationSchema,
  invitationAcceptedSchema,
  invitationAuthenticatorSchema,
  invitationCreatedSchema,
  invitationLookupSchema,
  invitationViewSchema,
  peopleEmailSchema,
  peopleListSchema,
  personViewSchema,
  roleChangeSchema,
  sessionListSchema,
} from '@card-console/shared/api/people';
import { z } from 'zod';
import { admins, defineFeature } from '../../core/endpoint';
import { invitationBodySchema } from './invitation-input';
import { createPeopleService } from './people-service';

const person = { email: peopleEmailSchema };
const personSession = {
  email: peopleEmailSchema,
  id: z
    .string()
    .min(1, 'id must not be empty')
    .max(100, 'id is too long')
    .regex(/^[A-Za-z0-9_-]+$/, 'id is not a session reference'),
};

/**
 * People (`packages/shared/src/api/people.ts` lists the endpoints): admins manage who may sign
 * in, every change with a recent second factor and an audit record; an invitee signs up with
 * the invitation's token, without a session. Answered only when the app keeps people in its
 * store (`people` given); 404 otherwise, as a path no endpoint has.
 */
export const peopleFeature = defineFeature('people', createPeopleService, (endpoint) => [
  endpoint({
    method: 'GET',
    path: '/people',
    summary: 'Everyone who may sign in, and the open invitations',
    access: admins,
    mutation: false,
    attempted: 'people.view',
    example: '/api/people',
    response: peopleListSchema,
    handler: ({ req, services }) => services.list(req),
  }),
  endpoint({
    method: 'POST',
    path: '/people/invitations',
    summary: 'Invite a person by email with a role: the single-use link is in this answer only',
    access: admins,
    mutation: true,
    attempted: 'people.change',
    example: '/api/people/invitations',
    body: invitationBodySchema,
    response: invitationCreatedSchema,
    status: 201,
    handler: ({ req, res, services, body }) => services.invite(req, res, body),
  }),
  endpoint({
    method: 'DELETE',
    path: '/people/invitations/:email',
    summary: "Withdraw an email's open invitation",
    access: admins,
    mutation: true,
    attempted: 'people.change',
    example: '/api/people/invitations/someone@example.test',
    params: person,
    response: z.undefined(),
    handler: ({ req, res, services, params }) =>
      services.withdrawInvitation(req, res, params.email),
  }),
  endpoint({
    method: 'PUT',
    path: '/people/:email/role',
    summary: "Change a person's role (never the last admin's; not for single sign-on people)",
    access: admins,
    mutation: true,
    attempted: 'people.change',
    example: '/api/people/someone@example.test/role',
    params: person,
    body: roleChangeSchema,
    response: personViewSchema,
    handler: ({ req, res, services, params, body }) =>
      services.changeRole(req, res, params.email, body.role),
  }),
  endpoint({
    method: 'POST',
    path: '/people/:email/disable',
    summary: 'Disable a person (never yourself, never the last admin): their sessions end',
    access: admins,
    mutation: true,
    attempted: 'people.change',
    example: '/api/people/someone@example.test/disable',
    params: person,
    response: personViewSchema,
    handler: ({ req, res, services, params }) => services.disable(req, res, params.email),
  }),
  endpoint({
    method: 'POST',
    path: '/people/:email/enable',
    summary: 'Enable a disabled person',
    access: admins,
    mutation: true,
    attempted: 'people.change',
    example: '/api/people/someone@example.test/enable',
    params: person,
    response: personViewSchema,
    handler: ({ req, res, services, params }) => services.enable(req, res, params.email),
  }),
  endpoint({
    method: 'DELETE',
    path: '/people/:email',
    summary: 'Remove a person (never yourself, never the last admin): their sessions end',
    access: admins,
    mutation: true,
    attempted: 'people.change',
    example: '/api/people/someone@example.test',
    params: person,
    response: z.undefined(),
    handler: ({ req, res, services, params }) => services.remove(req, res, params.email),
  }),
  endpoint({
    method: 'GET',
    path: '/people/:email/sessions',
    summary: "A person's open sessions (yours marked `current`)",
    access: admins,
    mutation: false,
    attempted: 'people.view',
    example: '/api/people/someone@example.test/sessions',
    params: person,
    response: sessionListSchema,
    handler: ({ req, services, params }) => services.sessions(req, params.email),
  }),
  endpoint({
    method: 'DELETE',
    path: '/people/:email/sessions',
    summary: "End every session of a person's",
    access: admins,
    mutation: true,
    attempted: 'people.change',
    example: '/api/people/someone@example.test/sessions',
    params: person,
    response: z.undefined(),
    handler: ({ req, res, services, params }) => services.endSessions(req, res, params.email),
  }),
  endpoint({
    method: 'DELETE',
    path: '/people/:email/sessions/:id',
    summary: 'End one session of a person',
    access: admins,
    mutation: true,
    attempted: 'people.change',
    example: '/api/people/someone@example.test/sessions/{sessionId}',
    params: personSession,
    response: z.undefined(),
    handler: ({ req, res, services, params }) =>
      services.endSession(req, res, params.email, params.id),
  }),
  endpoint({
    method: 'POST',
    path: '/invitations/lookup',
    summary: 'Who an invitation is for and with which role (no session: the token is the proof)',
    access: 'public',
    mutation: true,
    attempted: 'invitation.accept',
    example: '/api/invitations/lookup',
    body: invitationLookupSchema,
    response: invitationViewSchema,
    handler: ({ req, services, body }) => services.lookup(req, body.token),
  }),
  endpoint({
    method: 'POST',
    path: '/invitations/authenticator',
    summary:
      "A new TOTP secret for the invitee's authenticator, made here and bound to the invitation (no session: the token is the proof)",
    access: 'public',
    mutation: true,
    attempted: 'invitation.accept',
    example: '/api/invitations/authenticator',
    body: invitationLookupSchema,
    response: invitationAuthenticatorSchema,
    status: 201,
    handler: ({ req, services, body }) => services.authenticator(req, body.token),
  }),
  endpoint({
    method: 'POST',
    path: '/invitations/accept',
    summary: 'Sign up with an invitation: a password, and for an admin an enrolled authenticator',
    access: 'public',
    mutation: true,
    attempted: 'invitation.accept',
    example: '/api/invitations/accept',
    body: acceptInvitationSchema,
    response: invitationAcceptedSchema,
    status: 201,
    handler: ({ req, services, body }) => services.accept(req, body),
  }),
]);
