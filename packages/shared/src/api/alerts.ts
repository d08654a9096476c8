// Alerts (issue 32): rules a person sets for themselves (admins also for the team) and each
// person's in-app inbox of the alerts they raised. Endpoints (session required, any role;
// mutations carry `X-CSRF: 1` and our Origin):
//
//   GET    /api/alerts/rules                  → AlertRuleList: the caller's own rules and the team's
//   POST   /api/alerts/rules                  body AlertRuleInput → 201 AlertRule
//   PUT    /api/alerts/rules/:id              body AlertRuleUpdate (the input and the `version`
//                                             it was made on) → AlertRule; 409 `alert_rule_changed`
//                                             with `current` (the rule as it is) when it moved on
//   DELETE /api/alerts/rules/:id?version=N    → 204; 409 `alert_rule_changed` as above
//   GET    /api/alerts/inbox?unread=1&cursor=…&limit=…  → InboxPage, newest first
//   GET    /api/alerts/inbox/unread-count     → UnreadCount (the bell's number)
//   POST   /api/alerts/inbox/read             body `{ ids: […] }` or `{ all: true }` → MarkReadResult
//   GET    /api/alerts/webhooks               → WebhookTargetList (admins; never the secrets)
//   POST   /api/alerts/webhooks               body WebhookTargetInput → 201 WebhookTargetCreated
//                                             (admins; the signing secret, shown this once);
//                                             409 `webhook_target_exists`: one name (whatever its
//                                             case), one target
//   DELETE /api/alerts/webhooks/:id           → 204 (admins); 400 `invalid_request` while a rule
//                                             sends to it (change those rules first)
//   Both webhook changes need a recent second factor: 401 `step_up_required` otherwise.
//
// Refusals: 400 with the first problem in `detail`; 403 `forbidden` (someone else's rule, a team
// rule or a webhook when not an admin); 404 `not_found` (no such rule, or not one the caller sees);
// 409 `too_many_alert_rules` (the owner keeps the most rules allowed) and `alert_rule_exists` (the
// owner has a rule of the same kind, amount or share, scope and webhook).
// Delivery: to the inbox, by email (when the server has SMTP) to the rule's owner or, for a team
// rule, to the team, and to the rule's webhook target; each once. A rule's webhookTargetId must
// name an existing target, and its cardId and subAccountId a card and a sub account the card
// service has (400 otherwise: such a rule would never fire), asked of the card service when the
// rule is made and when a change names another one.
//
// The card-number check of names and ids is the BFF's alone (it reuses its detector); the SPA
// validates forms with the rest of these rules.
import { z } from 'zod';
import { cursorSchema, resourceIdSchema } from '../upstream/common';
import { MAX_VERSION, visibleNameSchema } from './names';

export const alertRuleKinds = [
  'declined',
  'amount_above',
  'utilisation_above',
  'balance_below',
  'new_category',
] as const;
export const alertRuleKindSchema = z.enum(alertRuleKinds);
export type AlertRuleKind = (typeof alertRuleKinds)[number];

/** The most cents a threshold may be: well inside a safe integer and PostgreSQL's bigint. */
export const MAX_ALERT_CENTS = 1_000_000_000_000;
/** At most this many alerts in one page of the inbox, and in one mark-read by ids. */
export const MAX_INBOX_PAGE = 100;

/**
 * The whole percent `part` is of `whole` (a card's spend of its limit), rounded down, in integer
 * maths: what a utilisation rule compares with its share and what the bell shows, so the two
 * never disagree. Floating point does not do: 57,000 of 100,000 is `(57000 / 100000) * 100` =
 * 56.99999999999999, shown as 56 % for an alert a 57 % rule raised. Exact for cents up to
 * `MAX_ALERT_CENTS` (× 100 stays a safe integer). `whole` must be more than 0.
 */
export function wholePercentOf(part: number, whole: number): number {
  const scaled = part * 100;
  const rest = scaled % whole;
  const quotient = (scaled - rest) / whole;
  // `%` keeps the sign of `part`: a negative part's quotient was rounded up, not down.
  return rest < 0 ? quotient - 1 : quotient;
}

/**
 * A check that `schema` accepts the text, its first problem said as this file's messages are
 * ("cardId must not contain control characters"): the project's id and name rules, once (no
 * control character reaches the database, which refuses a NUL with a 500).
 */
const checkedBy =
  (what: string, schema: z.ZodType<unknown, string>) => (ctx: z.core.ParsePayload<string>) => {
    if (ctx.issues.length > 0) return;
    const result = schema.safeParse(ctx.value);
    const problem = result.success ? undefined : result.error.issues[0]?.message;
    if (problem)
      ctx.issues.push({ code: 'custom', message: `${what} ${problem}`, input: ctx.value });
  };

/** A card-service id or one of ours: `resourceIdSchema`, and at most 200 characters. */
const id = (what: string) =>
  z
    .string({ error: `${what} must be text` })
    .max(200, `${what} must be at most 200 characters`)
    .check(checkedBy(what, resourceIdSchema));

/** A name a person gives (a rule's, a webhook target's): `visibleNameSchema`, trimmed. */
const visibleName = (what: string) =>
  z
    .string({ error: `${what} must be text` })
    .trim()
    .check(checkedBy(what, visibleNameSchema));

const cents = (what: string) =>
  z
    .number({ error: `${what} must be a number of cents` })
    .int(`${what} must be a whole number of cents`)
    .positive(`${what} must be more than 0 cents`)
    .max(MAX_ALERT_CENTS, `${what} must be at most ${MAX_ALERT_CENTS} cents`);

const channelsSchema = z.strictObject(
  {
    inbox: z.boolean({ error: 'channels.inbox must be true or false' }),
    email: z.boolean({ error: 'channels.email must be true or false' }),
    webhookTargetId: id('channels.webhookTargetId').nullable().default(null),
  },
  { error: 'channels must be an object with inbox, email and webhookTargetId only' },
);

const common = {
  name: visibleName('name'),
  /** Only this sub account's transactions, cards or balance. */
  subAccountId: id('subAccountId').optional(),
  /** Only this card's transactions or utilisation. */
  cardId: id('cardId').optional(),
  channels: channelsSchema,
  /** Email once a day (the day's alerts together) rather than at each alert. */
  digest: z.boolean({ error: 'digest must be true or false' }).default(false),
  enabled: z.boolean({ error: 'enabled must be true or false' }).default(true),
  /**
   * Also to the card's owner (`card-owners.ts`): by email to the owner's address, and to their
   * inbox when it is a person's. Not with a digest, and not on a balance (which has no card).
   */
  cardOwner: z.boolean({ error: 'cardOwner must be true or false' }).default(false),
  /** A team rule (admins only): owned by nobody, raised for every person the app knows. */
  team: z.boolean({ error: 'team must be true or false' }).default(false),
};

const sharePercent = z
  .number({ error: 'sharePercent must be a number from 1 to 100' })
  .int('sharePercent must be a whole number from 1 to 100')
  .min(1, 'sharePercent must be from 1 to 100')
  .max(100, 'sharePercent must be from 1 to 100');

const kindMessage = `kind must be one of ${alertRuleKinds.join(', ')}`;

/** The rule's kinds, each with what it needs. */
const variants = {
  declined: z.strictObject({ kind: z.literal('declined'), ...common }),
  amount_above: z.strictObject({
    kind: z.literal('amount_above'),
    ...common,
    amountCents: cents('amountCents'),
  }),
  utilisation_above: z.strictObject({
    kind: z.literal('utilisation_above'),
    ...common,
    sharePercent,
  }),
  balance_below: z.strictObject({
    kind: z.literal('balance_below'),
    ...common,
    amountCents: cents('amountCents'),
  }),
  new_category: z.strictObject({ kind: z.literal('new_category'), ...common }),
};

/** What holds across members: a channel chosen, a digest only by email, no card on a balance. */
function consistent(
  rule: {
    kind: AlertRuleKind;
    cardId?: string | undefined;
    digest: boolean;
    cardOwner: boolean;
    channels: { inbox: boolean; email: boolean; webhookTargetId: string | null };
  },
  ctx: z.RefinementCtx,
) {
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
  if (rule.cardOwner && rule.kind === 'balance_below') {
    ctx.addIssue({
      code: 'custom',
      path: ['cardOwner'],
      message: "a balance has no card, so no card's owner: turn cardOwner off",
    });
  } else if (rule.cardOwner && rule.digest) {
    ctx.addIssue({
      code: 'custom',
      path: ['cardOwner'],
      message: "a card's owner is sent each alert, not a digest: turn the digest or cardOwner off",
    });
  } else if (rule.cardOwner && !inbox && !email) {
    ctx.addIssue({
      code: 'custom',
      path: ['cardOwner'],
      message: "a card's owner is told by inbox or email: turn one of them on",
    });
  }
}

/** POST /api/alerts/rules: a rule as a person submits it. Unknown members are refused. */
export const alertRuleInputSchema = z
  .discriminatedUnion(
    'kind',
    [
      variants.declined,
      variants.amount_above,
      variants.utilisation_above,
      variants.balance_below,
      variants.new_category,
    ],
    { error: kindMessage },
  )
  .superRefine(consistent);
export type AlertRuleInput = z.input<typeof alertRuleInputSchema>;
export type AlertRuleInputParsed = z.output<typeof alertRuleInputSchema>;

const versionShape = {
  version: z
    .number({ error: 'version must be the rule version you changed' })
    .int('version must be a whole number')
    .positive('version must be at least 1')
    .max(MAX_VERSION, 'version must be a version the rule can have'),
};

/** PUT /api/alerts/rules/:id: the whole rule again, and the version it was made on. */
export const alertRuleUpdateSchema = z
  .discriminatedUnion(
    'kind',
    [
      variants.declined.extend(versionShape),
      variants.amount_above.extend(versionShape),
      variants.utilisation_above.extend(versionShape),
      variants.balance_below.extend(versionShape),
      variants.new_category.extend(versionShape),
    ],
    { error: kindMessage },
  )
  .superRefine(consistent);
export type AlertRuleUpdate = z.input<typeof alertRuleUpdateSchema>;

/** DELETE /api/alerts/rules/:id?version=N */
export const alertRuleDeleteQuerySchema = z.strictObject({
  version: z
    .string({ error: 'version is required: the rule version you are deleting' })
    .regex(/^[1-9]\d{0,8}$/, 'version must be a whole number from 1')
    .transform(Number),
});

/** A rule as the API returns it. */
export const alertRuleSchema = z.object({
  id: z.string(),
  kind: alertRuleKindSchema,
  name: z.string(),
  /** amount_above, balance_below. */
  amountCents: z.number().int().optional(),
  /** utilisation_above. */
  sharePercent: z.number().int().optional(),
  subAccountId: z.string().optional(),
  cardId: z.string().optional(),
  channels: z.object({
    inbox: z.boolean(),
    email: z.boolean(),
    webhookTargetId: z.string().nullable(),
  }),
  digest: z.boolean(),
  enabled: z.boolean(),
  /** Also to the card's owner. */
  cardOwner: z.boolean(),
  /** A team rule: owned by nobody, for everyone (only admins change it). */
  team: z.boolean(),
  /** Goes up by one with every change: a change names the version it was made on. */
  version: z.number().int().positive(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type AlertRuleView = z.infer<typeof alertRuleSchema>;

/** GET /api/alerts/rules: the caller's own and the team's, oldest first. */
export const alertRuleListSchema = z.object({ items: z.array(alertRuleSchema) });
export type AlertRuleList = z.infer<typeof alertRuleListSchema>;

/** What every inbox item carries: which alert, when, and which rule raised it about what. */
const inboxCommon = {
  id: z.string(),
  /** Null once the rule was deleted (its alerts stay). */
  ruleId: z.string().nullable(),
  /**
   * The rule's name for its owner (a team rule's: for everyone); for anyone else (a card's
   * owner) who set it, in the product's words: "An alert rule ana@example.com set in Card Console".
   */
  ruleName: z.string(),
  raisedAt: z.string(),
  readAt: z.string().nullable(),
  subAccountId: z.string(),
  subAccountName: z.string().optional(),
  cardId: z.string().optional(),
  cardName: z.string().optional(),
  /** The card's last four digits (never more of its number). */
  last4: z.string().optional(),
  /**
   * A test sent from its rule (`POST /api/alerts/rules/:id/test`): an example of what the rule
   * sends, about no real transaction, card or balance.
   */
  test: z.boolean().optional(),
};

/** The transaction an alert is about (declined, amount above, new category): texts masked. */
const transactionItem = {
  /** For a link to the transaction (with `subAccountId`). */
  transactionId: z.string(),
  transactionAt: z.string(),
  amountCents: z.number().int(),
  status: z.string(),
  description: z.string(),
  merchant: z.string().optional(),
  /** The merchant's name however the card network wrote it, when the index could tell. */
  merchantName: z.string().optional(),
  categoryCode: z.string().optional(),
  declineReason: z.string().optional(),
};

/** One alert in a person's inbox: what to show, by the kind of rule that raised it. */
export const inboxItemSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('declined'), ...inboxCommon, ...transactionItem }),
  z.object({
    kind: z.literal('amount_above'),
    ...inboxCommon,
    ...transactionItem,
    thresholdCents: z.number().int(),
  }),
  z.object({ kind: z.literal('new_category'), ...inboxCommon, ...transactionItem }),
  z.object({
    kind: z.literal('utilisation_above'),
    ...inboxCommon,
    sharePercent: z.number().int(),
    limitCents: z.number().int(),
    spentCents: z.number().int(),
    /** The limit's window (days in its time zone, inclusive). */
    windowStart: z.string(),
    windowEnd: z.string(),
    timeZone: z.string(),
  }),
  z.object({
    kind: z.literal('balance_below'),
    ...inboxCommon,
    thresholdCents: z.number().int(),
    balanceCents: z.number().int(),
    /** The UTC day it was seen under the threshold (raised once a day). */
    day: z.string(),
  }),
]);
export type InboxItem = z.infer<typeof inboxItemSchema>;

/**
 * POST /api/alerts/rules/:id/test: a test alert sent through the rule's channels, to the caller
 * alone (a team rule's test too): where it went.
 */
export const alertTestResultSchema = z.object({
  alertId: z.string(),
  /** Put in the caller's inbox (the rule has the inbox channel). */
  inbox: z.boolean(),
  /** The address it is being emailed to (the rule emails), else null. */
  email: z.string().nullable(),
  /** The webhook target's name it is being posted to, else null. */
  webhook: z.string().nullable(),
});
export type AlertTestResult = z.infer<typeof alertTestResultSchema>;

/** GET /api/alerts/inbox: a page, newest first; `next` is the cursor of the following page. */
export const inboxPageSchema = z.object({
  items: z.array(inboxItemSchema),
  next: z.string().optional(),
});
export type InboxPage = z.infer<typeof inboxPageSchema>;

export const inboxQuerySchema = z.strictObject({
  /** `1`: unread ones only. */
  unread: z.enum(['0', '1'], { error: 'unread must be 1 or 0' }).optional(),
  cursor: cursorSchema.optional(),
  limit: z
    .string()
    .regex(/^[1-9]\d{0,2}$/, `limit must be a whole number from 1 to ${MAX_INBOX_PAGE}`)
    .transform(Number)
    .refine((n) => n <= MAX_INBOX_PAGE, `limit must be a whole number from 1 to ${MAX_INBOX_PAGE}`)
    .optional(),
});
export type InboxQuery = z.input<typeof inboxQuerySchema>;

/** GET /api/alerts/inbox/unread-count */
export const unreadCountSchema = z.object({ unread: z.number().int().nonnegative() });
export type UnreadCount = z.infer<typeof unreadCountSchema>;

/** POST /api/alerts/inbox/read: these alerts, or all of the caller's. */
export const markReadSchema = z.union(
  [
    z.strictObject({
      ids: z
        .array(id('each id'), { error: 'ids must be a list of alert ids' })
        .min(1, 'ids must name at least one alert')
        .max(MAX_INBOX_PAGE, `ids must name at most ${MAX_INBOX_PAGE} alerts`),
    }),
    z.strictObject({ all: z.literal(true, { error: 'all must be true' }) }),
  ],
  {
    // A list of ids with a bad one says which and why (a control character, say), not only the shape.
    error: (issue) => {
      const errors = (issue as { errors?: z.core.$ZodIssue[][] }).errors ?? [];
      const inIds = errors[0]?.find((i) => i.path[0] === 'ids' && i.code !== 'unrecognized_keys');
      const asked = typeof issue.input === 'object' && issue.input !== null && 'ids' in issue.input;
      return asked && inIds
        ? `${inIds.path.join('.')}: ${inIds.message}`
        : 'send { ids: [...] } or { all: true }';
    },
  },
);
export type MarkRead = z.input<typeof markReadSchema>;

/** What marking read did: how many were unread and now are not, and how many stay unread. */
export const markReadResultSchema = z.object({
  marked: z.number().int().nonnegative(),
  unread: z.number().int().nonnegative(),
});
export type MarkReadResult = z.infer<typeof markReadResultSchema>;

/** POST /api/alerts/webhooks: a place to post alerts to. The BFF checks the URL's address. */
export const webhookTargetInputSchema = z.strictObject({
  name: visibleName('name'),
  url: z
    .string({ error: 'url must be text' })
    .trim()
    .min(1, 'url must not be empty')
    .max(2_000, 'url must be at most 2000 characters')
    // A URL parser drops tabs and line breaks and encodes the rest: what was typed is not what is saved.
    .refine((url) => !/\p{Cc}/u.test(url), 'url must not contain control characters')
    .refine(
      (url) => URL.canParse(url),
      'url must be a URL, such as https://hooks.example.com/alerts',
    ),
});
export type WebhookTargetInput = z.input<typeof webhookTargetInputSchema>;

/** A webhook target as listed: never its secret. */
export const webhookTargetSchema = z.object({
  id: z.string(),
  name: z.string(),
  url: z.string(),
  createdBy: z.string(),
  createdAt: z.string(),
});
export type WebhookTargetView = z.infer<typeof webhookTargetSchema>;

export const webhookTargetListSchema = z.object({ items: z.array(webhookTargetSchema) });
export type WebhookTargetList = z.infer<typeof webhookTargetListSchema>;

/**
 * The answer to its creation: the target and the secret requests are signed with (HMAC-SHA256
 * of `<timestamp>.<body>`), shown this once; the receiver keeps it to check signatures.
 */
export const webhookTargetCreatedSchema = webhookTargetSchema.extend({ secret: z.string() });
export type WebhookTargetCreated = z.infer<typeof webhookTargetCreatedSchema>;
