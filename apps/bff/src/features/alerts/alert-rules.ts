// An alert rule as a person submits it (checked here, once, with messages a person can act on),
// the rule as the store keeps it, and who may do what with one. A person sets rules for
// themselves; an admin also sets the team's (owner NULL), whose alerts reach the recipients the
// caller names. Choosing a webhook sends the program's data out of the product: admins only.
import {
  type AlertRuleInputParsed,
  alertRuleKinds,
  MAX_ALERT_CENTS,
  alertRuleInputSchema as wireInputSchema,
  alertRuleUpdateSchema as wireUpdateSchema,
} from '@card-console/shared/api/alerts';
import type { Role } from '@card-console/shared/api/meta';
import type { z } from 'zod';
import { containsCardNumber } from '../../platform/security/card-numbers';

export type { AlertRuleKind } from '@card-console/shared/api/alerts';
export { alertRuleKinds, MAX_ALERT_CENTS };

/** Rule kinds raised by a transaction (keyed `<rule>:<transaction>`). */
export const transactionRuleKinds = ['declined', 'amount_above', 'new_category'] as const;

/**
 * The texts a person types into a rule that must never hold a card number: the shared schema
 * (the SPA's forms use it too) leaves this check to the BFF, which owns the detector.
 */
function refuseCardNumbers(
  rule: Pick<AlertRuleInputParsed, 'name' | 'subAccountId' | 'cardId' | 'channels'>,
  ctx: z.RefinementCtx,
) {
  const texts: [string, string | null | undefined][] = [
    ['name', rule.name],
    ['subAccountId', rule.subAccountId],
    ['cardId', rule.cardId],
    ['channels.webhookTargetId', rule.channels.webhookTargetId],
  ];
  for (const [what, value] of texts) {
    if (typeof value === 'string' && containsCardNumber(value)) {
      ctx.addIssue({
        code: 'custom',
        path: what.split('.'),
        message: `${what} must not hold a card number`,
      });
    }
  }
}

/** A rule as a person submits it (create or replace), checked once, with messages a person can act on. */
export const alertRuleInputSchema = wireInputSchema.superRefine(refuseCardNumbers);
export type AlertRuleInput = AlertRuleInputParsed;

/** PUT's body: the rule and the version it was made on. */
export const alertRuleUpdateSchema = wireUpdateSchema.superRefine(refuseCardNumbers);

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** A rule as kept: the person's input (less `team`, read from the owner) and its bookkeeping. */
export type AlertRule = DistributiveOmit<AlertRuleInput, 'team'> & {
  id: string;
  /** The person the rule is for; null: a team rule. */
  ownerEmail: string | null;
  createdBy: string;
  createdAt: string;
  updatedBy: string;
  updatedAt: string;
  version: number;
};

export interface AlertActor {
  email: string;
  role: Role;
}

export type AlertRuleRefusal =
  | 'team_rules_are_for_admins'
  | 'webhooks_are_for_admins'
  | 'not_yours';

/** Whether `actor` may see `rule`: their own, and the team's. */
export const maySeeRule = (actor: AlertActor, rule: Pick<AlertRule, 'ownerEmail'>) =>
  rule.ownerEmail === null || rule.ownerEmail === actor.email.toLowerCase();

/** Whether `actor` may change or delete `rule`: their own; an admin, the team's too. */
export function mayChangeRule(
  actor: AlertActor,
  rule: Pick<AlertRule, 'ownerEmail'>,
): AlertRuleRefusal | undefined {
  if (rule.ownerEmail === null) return actor.role === 'admin' ? undefined : 'not_yours';
  return rule.ownerEmail === actor.email.toLowerCase() ? undefined : 'not_yours';
}

/**
 * Why `actor` may not save `input` (as a new rule, or over `existing`), or undefined when they
 * may. A rule keeps its owner: `team` must say what the existing rule is.
 */
export function maySaveRule(
  actor: AlertActor,
  input: Pick<AlertRuleInput, 'team' | 'channels'>,
  existing?: Pick<AlertRule, 'ownerEmail' | 'channels'>,
): AlertRuleRefusal | undefined {
  if (existing) {
    const refused = mayChangeRule(actor, existing);
    if (refused) return refused;
    if (input.team !== (existing.ownerEmail === null)) return 'not_yours';
  }
  if (input.team && actor.role !== 'admin') return 'team_rules_are_for_admins';
  // A rule that posts to a webhook is saved by admins only, whatever else the save changes: its
  // name and figures go to wherever the webhook points (a channel an admin chose), so a person
  // made finance since they hooked their rule up may take the webhook off, not keep it and
  // rename the rule into a message of their own.
  if (input.channels.webhookTargetId !== null && actor.role !== 'admin') {
    return 'webhooks_are_for_admins';
  }
  return undefined;
}

/** The owner a new rule gets from who saves it. */
export const ownerOf = (actor: AlertActor, input: Pick<AlertRuleInput, 'team'>) =>
  input.team ? null : actor.email.toLowerCase();
