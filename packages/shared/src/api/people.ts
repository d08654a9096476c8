// People (issue 32): who may sign in, kept in the BFF's SQL store and managed here by admins.
// Endpoints (admins, session required; every change carries `X-CSRF: 1` and our Origin and needs
// a second factor passed within the last 5 minutes: 401 `step_up_required` otherwise, with the
// ways to give one, as enrolling a passkey; `POST /api/session/step-up`, then the change again):
//
//   GET    /api/people                         → PeopleList (everyone, and the open invitations)
//   POST   /api/people/invitations             body InvitationInput → 201 InvitationCreated (the
//                                              link is in this answer only; 409 `person_exists`)
//   DELETE /api/people/invitations/:email      → 204 (withdraws an open invitation)
//   PUT    /api/people/:email/role             body RoleChange → PersonView; 409 `last_admin`,
//                                              409 `role_from_provider` (single sign-on people)
//   POST   /api/people/:email/disable          → PersonView; 409 `last_admin`; 400 for yourself
//   POST   /api/people/:email/enable           → PersonView
//   DELETE /api/people/:email                  → 204; 409 `last_admin`; 400 for yourself
//   GET    /api/people/:email/sessions         → SessionList (the person's active sessions)
//   DELETE /api/people/:email/sessions         → 204 (ends every session of theirs)
//   DELETE /api/people/:email/sessions/:id     → 204 (ends that one)
//
// Signing up from an invitation (no session; the token is the proof, in the body, never the URL's
// query sent to a server: the SPA reads it from the link's fragment):
//
//   POST   /api/invitations/lookup             body { token } → InvitationView; 404 `not_found`,
//                                              410 `invitation_expired` | `invitation_used` |
//                                              `invitation_revoked`
//   POST   /api/invitations/authenticator      body { token } → 201 InvitationAuthenticator: a
//                                              new TOTP secret the server made for this
//                                              invitation (shown once; asked again, a new one
//                                              replaces it); the same 404 and 410 codes
//   POST   /api/invitations/accept             body AcceptInvitation → 201 InvitationAccepted
//                                              (then sign in as usual); an admin's invitation
//                                              needs a `totpCode` from the secret made last
//                                              (400 `invalid_body` without, 400 `invalid_totp`
//                                              for a wrong code); the same 404 and 410 codes.
//                                              The browser never sends a secret (400).
//
// All three count against the sign-in attempts of the address (429 `rate_limited`).
// Refusals: 400 with the first problem in `detail`; 404 `not_found` (no such person).
import { z } from 'zod';
import { roleSchema } from './meta';

/** The SPA's page an invitation link opens; the token follows in the fragment (`#token`). */
export const INVITATION_PAGE = '/join';

/** How long an invitation stays open, by default and at most (days). */
export const INVITATION_DAYS = { default: 7, max: 30 } as const;

/** The shortest password a person may choose when signing up. */
export const MIN_PASSWORD_LENGTH = 12;
export const MAX_PASSWORD_LENGTH = 200;

export const peopleEmailSchema = z
  .string({ error: 'email must be text' })
  .trim()
  .toLowerCase()
  .pipe(z.email({ error: 'email must be an email address' }).max(254, 'email is too long'));

export const invitationInputSchema = z.strictObject(
  {
    email: peopleEmailSchema,
    role: roleSchema,
    days: z
      .number({ error: 'days must be a number' })
      .int('days must be a whole number')
      .min(1, 'days must be at least 1')
      .max(INVITATION_DAYS.max, `days must be at most ${INVITATION_DAYS.max}`)
      .default(INVITATION_DAYS.default),
  },
  { error: 'an invitation has email, role and days only' },
);
export type InvitationInput = z.input<typeof invitationInputSchema>;

export const roleChangeSchema = z.strictObject(
  { role: roleSchema },
  { error: 'a role change has role only' },
);
export type RoleChange = z.infer<typeof roleChangeSchema>;

const tokenSchema = z
  .string({ error: 'token must be text' })
  .regex(/^[A-Za-z0-9_-]{43}$/, 'this is not an invitation link: copy the whole link');

export const invitationLookupSchema = z.strictObject(
  { token: tokenSchema },
  { error: 'a lookup has token only' },
);

export const acceptInvitationSchema = z.strictObject(
  {
    token: tokenSchema,
    password: z
      .string({ error: 'password must be text' })
      .min(MIN_PASSWORD_LENGTH, `password must be at least ${MIN_PASSWORD_LENGTH} characters`)
      .max(MAX_PASSWORD_LENGTH, `password must be at most ${MAX_PASSWORD_LENGTH} characters`),
    /**
     * A current code from the authenticator holding the secret the server made for this
     * invitation (POST /api/invitations/authenticator): an admin's sign-up needs it.
     */
    totpCode: z
      .string()
      .regex(/^\d{6}$/, 'totpCode must be 6 digits')
      .optional(),
  },
  {
    error:
      'an acceptance has token, password and totpCode only (the server makes the authenticator secret)',
  },
);
export type AcceptInvitation = z.infer<typeof acceptInvitationSchema>;

/** The invitee's authenticator secret, made by the server for this invitation, shown once. */
export const invitationAuthenticatorSchema = z.object({
  /** Base32, 160 bits: to type into an authenticator app. */
  secret: z.string(),
  /** The same as an `otpauth://totp/…` address, for a QR code. */
  otpauthUri: z.string(),
});
export type InvitationAuthenticator = z.infer<typeof invitationAuthenticatorSchema>;

export const invitationAcceptedSchema = z.object({ email: z.string() });
export type InvitationAccepted = z.infer<typeof invitationAcceptedSchema>;

export const signInMethodViewSchema = z.enum(['password', 'passkey', 'sso']);

export const personViewSchema = z.object({
  email: z.string(),
  role: roleSchema,
  disabled: z.boolean(),
  /** How they came: the users file, an invitation, or single sign-on (role read-only then). */
  source: z.enum(['file', 'invited', 'sso']),
  /** Invited and not signed up yet. */
  pending: z.boolean(),
  hasTotp: z.boolean(),
  createdAt: z.string(),
  lastSignIn: z.object({ at: z.string(), method: signInMethodViewSchema }).optional(),
  activeSessions: z.number().int().nonnegative(),
  /** The caller: their own row cannot be removed or disabled from here. */
  you: z.boolean(),
});
export type PersonView = z.infer<typeof personViewSchema>;

export const openInvitationSchema = z.object({
  email: z.string(),
  role: roleSchema,
  invitedBy: z.string(),
  expiresAt: z.string(),
});
export type OpenInvitation = z.infer<typeof openInvitationSchema>;

export const peopleListSchema = z.object({
  people: z.array(personViewSchema),
  invitations: z.array(openInvitationSchema),
});
export type PeopleList = z.infer<typeof peopleListSchema>;

export const invitationCreatedSchema = z.object({
  email: z.string(),
  role: roleSchema,
  expiresAt: z.string(),
  /** `${origin}/join#<token>`: shown once, for the admin to send. */
  link: z.string(),
  /** Whether the BFF emailed the link too (only with ALERT_SMTP_URL set). */
  emailed: z.boolean(),
});
export type InvitationCreated = z.infer<typeof invitationCreatedSchema>;

export const invitationViewSchema = z.object({
  email: z.string(),
  role: roleSchema,
  expiresAt: z.string(),
  /** Admins enrol an authenticator while signing up. */
  needsSecondFactor: z.boolean(),
});
export type InvitationView = z.infer<typeof invitationViewSchema>;

export const personSessionSchema = z.object({
  id: z.string(),
  method: signInMethodViewSchema,
  startedAt: z.string(),
  lastSeenAt: z.string(),
  /** The session of the request that asked. */
  current: z.boolean(),
});
export const sessionListSchema = z.object({ sessions: z.array(personSessionSchema) });
export type SessionList = z.infer<typeof sessionListSchema>;
