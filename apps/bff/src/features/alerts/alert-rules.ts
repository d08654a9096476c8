// An alert rule as a person submits it (checked here, once, with messages a person can act on),
// the rule as the store keeps it, and who may do what with one. A person sets rules for
// themselves; an admin also sets the team's (owner NULL), whose alerts reach the recipients the
// caller names. Choosing a webhook sends the program's data out of the product: admins only.
import type { Role } from '@card-console/shared/api/meta';
import { z } from 'zod';
import { containsCardNumber } from '../../platform/security/card-numbers';

export const alertRuleKinds = [
  'declined',
  'amount_above',
  'utilisation_above',
  'balance_below',
  'new_category',
] as const;
export type AlertRuleKind = (typeof alertRuleKinds)[number];

/** Rule kinds raised by a transaction (keyed `<rule>:<transaction>`). */
export const transactionRuleKinds = ['declined', 'amount_above', 'new_category'] as const;

/** The most cents a threshold may be: well inside a safe integer and PostgreSQL's bigint. */
export const MAX_ALERT_CENTS = 1_000_000_000_000;

const id = (what: string) =>
  z
    .string({ error: `${what} must be text` })
    .min(1, `${what} must not be empty`)
    .max(200, `${what} must be at most 200 characters`)
    .refine((v) => !containsCardNumber(v), `${what} must not hold a card number`);

const cents = (what: string) =>
  z
    .number({ error: `${what} must be a number of cents` })
    .int(`${what} must be a whole number of cents`)
    .positive(`${what} must be more than 0 cents`)
    .max(MAX_ALERT_CENTS, `${what} must be at most ${MAX_ALERT_CENTS} cents`);

const common = {
  name: z
    .string({ error: 'name must be text' })
    .trim()
    .min(1, 'name must not be empty')
    .max(100, 'name must be at most 100 characters')
    .refine((v) => !containsCardNumber(v), 'name must not hold a card number'),
  /** Only this sub account's transactions, cards or balance. */
  subAccountId: id('subAccountId').optional(),
  /** Only this card's transactions or utilisation. */
  cardId: id('cardId').optional(),
  channels: z.strictObject(
    {
      inbox: z.boolean({ error: 'channels.inbox must be true or false' }),
      email: z.boolean({ error: 'channels.email must be true or false' }),
      webhookTargetId: id('channels.webhookTargetId').nullable().default(null),
    },
    { error: 'channels must be an object with inbox, email and webhookTargetId only' },
  ),
  /** Email once a day (the day's alerts together) rather than at each alert. */
  digest: z.boolean({ error: 'digest must be true or false' }).default(false),
  enabled: z.boolean({ error: 'enabled must be true or false' }).default(true),
  /** A team rule (admins only): owned by nobody, raised for the recipients the caller names. */
  team: z.boolean({ error: 'team must be true or false' }).default(false),
};

const kindMessage = `kind must be one of ${alertRuleKinds.join(', ')}`;

/** A rule as a person submits it (create or replace). Unknown members are refused. */
export const alertRuleInputSchema = z
  .discriminatedUnion(
    'kind',
    [
      z.strictObject({ kind: z.literal('declined'), ...common }),
      z.strictObject({
        kind: z.literal('amount_above'),
        ...common,
        amountCents: cents('amountCents'),
      }),
      z.strictObject({
        kind: z.literal('utilisation_above'),
        ...common,
        sharePercent: z
          .number({ error: 'sharePercent must be a number from 1 to 100' })
          .int('sharePercent must be a whole number from 1 to 100')
          .min(1, 'sharePercent must be from 1 to 100')
          .max(100, 'sharePercent must be from 1 to 100'),
      }),
      z.strictObject({
        kind: z.literal('balance_below'),
        ...common,
        amountCents: cents('amountCents'),
      }),
      z.strictObject({ kind: z.literal('new_category'), ...common }),
    ],
    { error: kindMessage },
  )
  .superRefine((rule, ctx) => {
    const { inbox, email, webhookTargetId } = rule.channels;
    if (!inbox && !email && webhookTargetId === null) {
      ctx.addIssue({
        code: 'custom',
        path: ['channels'],
        message: 'choose at least one channel: inbox, email or a webhook',
      });
    }
    if (rule.digest && !email) {
      ctx.addIssue({
        code: 'custom',
        path: ['digest'],
        message: 'a daily digest is sent by email: turn email on',
      });
    }
    if (rule.kind === 'balance_below' && rule.cardId !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['cardId'],
        message: 'a balance belongs to a sub account: a balance rule takes no card',
      });
    }
  });
export type AlertRuleInput = z.infer<typeof alertRuleInputSchema>;

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
  const webhookChanged =
    input.channels.webhookTargetId !== (existing?.channels.webhookTargetId ?? null);
  if (webhookChanged && input.channels.webhookTargetId !== null && actor.role !== 'admin') {
    return 'webhooks_are_for_admins';
  }
  return undefined;
}

/** The owner a new rule gets from who saves it. */
export const ownerOf = (actor: AlertActor, input: Pick<AlertRuleInput, 'team'>) =>
  input.team ? null : actor.email.toLowerCase();
