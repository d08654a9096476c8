import { defineFeature } from '../../core/endpoint';
import { invitationBodySchema } from './invitation-input';
import { createPeopleService } from './people-service';

/**
 * People (`packages/shared/src/api/people.ts` lists the endpoints): admins manage who may sign
 * in, every change with a recent second factor and an audit record; an invitee signs up with
 * the invitation's token, without a session. Answered only when the app keeps people in its
 * store (`people` given); 404 otherwise, as a path no endpoint has.
 */
export const peopleFeature = defineFeature('people', createPeopleService, (endpoint) => [
  endpoint('people.list', {
    summary: 'Everyone who may sign in, and the open invitations',
    attempted: 'people.view',
    example: '/api/people',
    handler: ({ req, services }) => services.list(req),
  }),
  endpoint('people.invite', {
    summary: 'Invite a person by email with a role: the single-use link is in this answer only',
    attempted: 'people.change',
    example: '/api/people/invitations',
    body: invitationBodySchema,
    status: 201,
    handler: ({ req, res, services, body }) => services.invite(req, res, body),
  }),
  endpoint('people.cancelInvitation', {
    summary: "Withdraw an email's open invitation",
    attempted: 'people.change',
    example: '/api/people/invitations/someone@example.test',
    handler: ({ req, res, services, params }) =>
      services.withdrawInvitation(req, res, params.email),
  }),
  endpoint('people.setRole', {
    summary: "Change a person's role (never the last admin's; not for single sign-on people)",
    attempted: 'people.change',
    example: '/api/people/someone@example.test/role',
    handler: ({ req, res, services, params, body }) =>
      services.changeRole(req, res, params.email, body.role),
  }),
  endpoint('people.disable', {
    summary: 'Disable a person (never yourself, never the last admin): their sessions end',
    attempted: 'people.change',
    example: '/api/people/someone@example.test/disable',
    handler: ({ req, res, services, params }) => services.disable(req, res, params.email),
  }),
  endpoint('people.enable', {
    summary: 'Enable a disabled person',
    attempted: 'people.change',
    example: '/api/people/someone@example.test/enable',
    handler: ({ req, res, services, params }) => services.enable(req, res, params.email),
  }),
  endpoint('people.remove', {
    summary: 'Remove a person (never yourself, never the last admin): their sessions end',
    attempted: 'people.change',
    example: '/api/people/someone@example.test',
    handler: ({ req, res, services, params }) => services.remove(req, res, params.email),
  }),
  endpoint('people.sessions', {
    summary: "A person's open sessions (yours marked `current`)",
    attempted: 'people.view',
    example: '/api/people/someone@example.test/sessions',
    handler: ({ req, services, params }) => services.sessions(req, params.email),
  }),
  endpoint('people.endSessions', {
    summary: "End every session of a person's",
    attempted: 'people.change',
    example: '/api/people/someone@example.test/sessions',
    handler: ({ req, res, services, params }) => services.endSessions(req, res, params.email),
  }),
  endpoint('people.endSession', {
    summary: 'End one session of a person',
    attempted: 'people.change',
    example: '/api/people/someone@example.test/sessions/{sessionId}',
    handler: ({ req, res, services, params }) =>
      services.endSession(req, res, params.email, params.id),
  }),
  endpoint('invitations.lookup', {
    summary: 'Who an invitation is for and with which role (no session: the token is the proof)',
    attempted: 'invitation.accept',
    example: '/api/invitations/lookup',
    handler: ({ req, services, body }) => services.lookup(req, body.token),
  }),
  endpoint('invitations.authenticator', {
    summary:
      "A new TOTP secret for the invitee's authenticator, made here and bound to the invitation (no session: the token is the proof)",
    attempted: 'invitation.accept',
    example: '/api/invitations/authenticator',
    status: 201,
    handler: ({ req, services, body }) => services.authenticator(req, body.token),
  }),
  endpoint('invitations.accept', {
    summary: 'Sign up with an invitation: a password, and for an admin an enrolled authenticator',
    attempted: 'invitation.accept',
    example: '/api/invitations/accept',
    status: 201,
    handler: ({ req, services, body }) => services.accept(req, body),
  }),
]);
