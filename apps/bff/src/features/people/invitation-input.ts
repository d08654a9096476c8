// An invitation as an admin submits it: the shared schema (the SPA's form uses it too), and the
// BFF's own check that the email holds no card number (`4111-1111-1111-1111@…` is an address):
// the invitation's audit record could not be written with one, so it is a 400 before anything.
import { invitationInputSchema } from '@card-console/shared/api/people';
import { findCardNumbers } from '../../platform/security/card-numbers';

export const invitationBodySchema = invitationInputSchema.superRefine((invitation, ctx) => {
  if (findCardNumbers(invitation.email).length > 0) {
    ctx.addIssue({ code: 'custom', path: ['email'], message: 'email must not hold a card number' });
  }
});
