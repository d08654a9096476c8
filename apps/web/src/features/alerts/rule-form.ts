import {
  type AlertRuleInput,
  type AlertRuleKind,
  type AlertRuleView,
  alertRuleInputSchema,
  MAX_ALERT_CENTS,
} from '@card-console/shared/api/alerts';
import { formatCents, parseDollarsToCents } from '@card-console/shared/money';

/** What the rule form holds: text as typed, choices as chosen. */
export interface RuleFormValues {
  kind: AlertRuleKind;
  name: string;
  /** Dollars as typed (amount above, balance below). */
  amount: string;
  /** Whole percent as typed (utilisation above). */
  share: string;
  subAccountId: string;
  cardId: string;
  inbox: boolean;
  email: boolean;
  /** The webhook target alerts are posted to (admins choose it), or none. */
  webhookTargetId: string | null;
  digest: boolean;
  enabled: boolean;
  team: boolean;
  /** Also to the card's owner (not with a digest, not on a balance: `ownerApplies`). */
  cardOwner: boolean;
}

export type RuleFormField =
  | 'kind'
  | 'name'
  | 'amount'
  | 'share'
  | 'subAccountId'
  | 'cardId'
  | 'channels'
  | 'digest'
  | 'team'
  | 'cardOwner';
export type RuleFormErrors = Partial<Record<RuleFormField, string>>;

export const kindLabels: Record<AlertRuleKind, string> = {
  declined: 'A charge is declined',
  amount_above: 'A charge is over an amount',
  utilisation_above: 'A card reaches a share of its limit',
  balance_below: 'A sub account balance falls under an amount',
  new_category: 'A card is used in a new merchant category',
};

export const takesAmount = (kind: AlertRuleKind) =>
  kind === 'amount_above' || kind === 'balance_below';

/**
 * Whether "Also to the card's owner" can be on, as `alertRuleInputSchema` says: a balance has no
 * card, and the owner is sent each alert, never a digest.
 */
export const ownerApplies = (values: Pick<RuleFormValues, 'kind' | 'digest'>) =>
  values.kind !== 'balance_below' && !values.digest;

export const emptyRuleForm: RuleFormValues = {
  kind: 'declined',
  name: '',
  amount: '',
  share: '',
  subAccountId: '',
  cardId: '',
  inbox: true,
  email: false,
  webhookTargetId: null,
  digest: false,
  enabled: true,
  team: false,
  cardOwner: false,
};

/** A saved rule as the form shows it (its amount in dollars). */
export function ruleToForm(rule: AlertRuleView): RuleFormValues {
  return {
    kind: rule.kind,
    name: rule.name,
    amount: rule.amountCents === undefined ? '' : formatCents(rule.amountCents).replace('$', ''),
    share: rule.sharePercent === undefined ? '' : String(rule.sharePercent),
    subAccountId: rule.subAccountId ?? '',
    cardId: rule.cardId ?? '',
    inbox: rule.channels.inbox,
    email: rule.channels.email,
    webhookTargetId: rule.channels.webhookTargetId,
    digest: rule.digest,
    enabled: rule.enabled,
    team: rule.team,
    cardOwner: rule.cardOwner,
  };
}

const fieldOf: Record<string, RuleFormField> = {
  kind: 'kind',
  name: 'name',
  amountCents: 'amount',
  sharePercent: 'share',
  subAccountId: 'subAccountId',
  cardId: 'cardId',
  channels: 'channels',
  digest: 'digest',
  team: 'team',
  cardOwner: 'cardOwner',
};

/** The API's field names in a message as the form's labels say them. */
const FIELD_WORDS: readonly (readonly [string, string])[] = [
  ['channels.webhookTargetId', 'Webhook'],
  ['subAccountId', 'Sub account'],
  ['sharePercent', 'Share'],
  ['amountCents', 'Amount'],
  ['cardId', 'Card'],
  ['name', 'Name'],
];

/** A schema message as the form shows it: the field as labelled, in sentence case. */
export function inFormWords(message: string): string {
  for (const [field, words] of FIELD_WORDS) {
    if (message.startsWith(`${field} `)) return `${words}${message.slice(field.length)}`;
  }
  return message.charAt(0).toUpperCase() + message.slice(1);
}

/**
 * The form as the API's rule input, checked with the shared schema (the same messages the BFF
 * sends); the amount is dollars turned into whole cents. Either the input or the errors by field.
 */
export function formToInput(
  values: RuleFormValues,
): { ok: true; input: AlertRuleInput } | { ok: false; errors: RuleFormErrors } {
  const errors: RuleFormErrors = {};
  let amountCents: number | undefined;
  if (takesAmount(values.kind)) {
    const parsed = parseDollarsToCents(values.amount, { maxCents: MAX_ALERT_CENTS });
    if (parsed.ok) amountCents = parsed.cents;
    else errors.amount = parsed.error;
  }
  const share = values.share.trim();
  const candidate = {
    kind: values.kind,
    // A rule left unnamed is called by what it watches: nobody has to invent a name to save it.
    name: values.name.trim() === '' ? defaultRuleName(values) : values.name,
    ...(amountCents !== undefined ? { amountCents } : {}),
    ...(values.kind === 'utilisation_above'
      ? {
          sharePercent: /^\d+$/.test(share) ? Number(share) : share === '' ? undefined : Number.NaN,
        }
      : {}),
    ...(values.subAccountId ? { subAccountId: values.subAccountId } : {}),
    ...(values.cardId && values.kind !== 'balance_below' ? { cardId: values.cardId } : {}),
    channels: { inbox: values.inbox, email: values.email, webhookTargetId: values.webhookTargetId },
    digest: values.digest,
    enabled: values.enabled,
    team: values.team,
    // What the form shows: off while it cannot be on (a balance rule, a digest).
    cardOwner: values.cardOwner && ownerApplies(values),
  };
  // The checks across fields (a channel, digest by email, no card on a balance) run only once
  // every field parses: a second pass with stand-ins for the fields that did not finds them too.
  const standIns = {
    ...candidate,
    name: 'x',
    ...(takesAmount(values.kind) ? { amountCents: 1 } : {}),
    ...(values.kind === 'utilisation_above' ? { sharePercent: 1 } : {}),
  };
  for (const tried of [candidate, standIns]) {
    const result = alertRuleInputSchema.safeParse(tried);
    if (result.success) continue;
    for (const issue of result.error.issues) {
      const field = fieldOf[String(issue.path[0])];
      if (field && !errors[field]) errors[field] = inFormWords(issue.message);
    }
  }
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  return { ok: true, input: candidate as AlertRuleInput };
}

/**
 * What a rule is called when the person gives it no name, from what it watches: "Declines",
 * "Charges over $500.00", "Balance under $1,000.00", "A card at 80% of its limit". Shown as the
 * Name field's placeholder, so the name saved is the name seen.
 */
export function defaultRuleName(values: Pick<RuleFormValues, 'kind' | 'amount' | 'share'>): string {
  const amount = takesAmount(values.kind)
    ? parseDollarsToCents(values.amount, { maxCents: MAX_ALERT_CENTS })
    : undefined;
  const cents = amount?.ok ? formatCents(amount.cents) : undefined;
  const share = values.share.trim();
  switch (values.kind) {
    case 'declined':
      return 'Declines';
    case 'amount_above':
      return cents ? `Charges over ${cents}` : 'Large charges';
    case 'balance_below':
      return cents ? `Balance under ${cents}` : 'Low balance';
    case 'utilisation_above':
      return /^\d+$/.test(share) ? `A card at ${share}% of its limit` : 'A card near its limit';
    case 'new_category':
      return 'New merchant categories';
  }
}

/**
 * "Charges over $500.00 · Travel card (•••• 4242) · inbox, email": what a rule does, for the
 * list, with what it watches when it is one card or sub account (`scope`: their names, when
 * known; else their ids), so a rule on one card is told from the same rule on all.
 */
export function ruleDescription(
  rule: AlertRuleView,
  scope: { card?: string | undefined; subAccount?: string | undefined } = {},
): string {
  const when =
    rule.kind === 'amount_above' && rule.amountCents !== undefined
      ? `Charges over ${formatCents(rule.amountCents)}`
      : rule.kind === 'balance_below' && rule.amountCents !== undefined
        ? `Balance under ${formatCents(rule.amountCents)}`
        : rule.kind === 'utilisation_above'
          ? `A card at ${rule.sharePercent ?? '?'}% of its limit`
          : kindLabels[rule.kind];
  const channels = [
    rule.channels.inbox ? 'inbox' : '',
    rule.channels.email ? (rule.digest ? 'email (daily digest)' : 'email') : '',
    rule.channels.webhookTargetId ? 'webhook' : '',
    rule.cardOwner ? "the card's owner" : '',
  ].filter(Boolean);
  const watches = [
    rule.subAccountId ? `sub account ${scope.subAccount ?? rule.subAccountId}` : '',
    rule.cardId ? `card ${scope.card ?? rule.cardId}` : '',
  ].filter(Boolean);
  return [when, ...watches, channels.join(', ')].join(' · ');
}
