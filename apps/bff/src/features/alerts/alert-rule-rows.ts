// How a rule sits in `alert_rule` (migration `alerts`) and comes back out of it.
import type { AlertRule, AlertRuleInput } from './alert-rules';

export interface RuleRow {
  id: string;
  owner_email: string | null;
  name: string;
  kind: AlertRule['kind'];
  amount_cents: string | null;
  share_percent: number | null;
  sub_account_id: string | null;
  card_id: string | null;
  channel_inbox: boolean;
  channel_email: boolean;
  webhook_target_id: string | null;
  digest: boolean;
  enabled: boolean;
  to_card_owner: boolean;
  created_by: string;
  created_at: Date | string;
  updated_by: string;
  updated_at: Date | string;
  version: number;
}

/** The columns as `RuleRow` reads them (bigint as text: the engines decode it differently). */
export const RULE_COLUMNS = `id, owner_email, name, kind, amount_cents::text AS amount_cents,
  share_percent, sub_account_id, card_id, channel_inbox, channel_email, webhook_target_id, digest,
  enabled, to_card_owner, created_by, created_at, updated_by, updated_at, version`;

const iso = (value: Date | string) => new Date(value).toISOString();

export function ruleOf(row: RuleRow): AlertRule {
  const common = {
    id: row.id,
    ownerEmail: row.owner_email,
    name: row.name,
    ...(row.sub_account_id === null ? {} : { subAccountId: row.sub_account_id }),
    ...(row.card_id === null ? {} : { cardId: row.card_id }),
    channels: {
      inbox: row.channel_inbox,
      email: row.channel_email,
      webhookTargetId: row.webhook_target_id,
    },
    digest: row.digest,
    enabled: row.enabled,
    cardOwner: row.to_card_owner,
    createdBy: row.created_by,
    createdAt: iso(row.created_at),
    updatedBy: row.updated_by,
    updatedAt: iso(row.updated_at),
    version: row.version,
  };
  switch (row.kind) {
    case 'amount_above':
    case 'balance_below':
      return { ...common, kind: row.kind, amountCents: Number(row.amount_cents) };
    case 'utilisation_above':
      return { ...common, kind: row.kind, sharePercent: Number(row.share_percent) };
    default:
      return { ...common, kind: row.kind };
  }
}

/** The values of the columns a person's input sets, in `INPUT_COLUMNS`' order. */
export const INPUT_COLUMNS = `name, kind, amount_cents, share_percent, sub_account_id, card_id,
  channel_inbox, channel_email, webhook_target_id, digest, enabled, to_card_owner`;

export function inputValues(input: AlertRuleInput): unknown[] {
  return [
    input.name,
    input.kind,
    'amountCents' in input ? input.amountCents : null,
    'sharePercent' in input ? input.sharePercent : null,
    input.subAccountId ?? null,
    input.cardId ?? null,
    input.channels.inbox,
    input.channels.email,
    input.channels.webhookTargetId,
    input.digest,
    input.enabled,
    input.cardOwner,
  ];
}
