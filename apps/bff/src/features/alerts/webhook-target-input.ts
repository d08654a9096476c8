// A webhook target as an admin submits it: the shared schema (the SPA's form uses it too), and
// the BFF's own check that its name holds no card number, as an alert rule's (alert-rules.ts).
import { webhookTargetInputSchema } from '@card-console/shared/api/alerts';
import { containsCardNumber } from '../../platform/security/card-numbers';

export const webhookTargetBodySchema = webhookTargetInputSchema.superRefine((target, ctx) => {
  if (containsCardNumber(target.name)) {
    ctx.addIssue({ code: 'custom', path: ['name'], message: 'name must not hold a card number' });
  }
});
