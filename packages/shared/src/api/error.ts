import { z } from 'zod';
import { alertRuleSchema } from './alerts';
import { closePolicySchema } from './close-policy';
import { notesSchema, receiptSchema } from './notes';
import { stepUpMethodSchema } from './session';

/**
 * Every `code` the BFF answers with, and its RFC 9457 `title`: a short summary of the problem
 * type, the same for every occurrence (what happened this time is in `detail`). A new code is
 * added here first: `AppError` takes only these, and the SPA's parse refuses any other.
 */
export const problemTitles = {
  alert_rule_changed: 'Alert rule changed meanwhile',
  alert_rule_exists: 'Identical alert rule exists',
  audit_unavailable: 'Audit trail could not record the change',
  notes_changed: 'Transaction notes changed meanwhile',
  bad_origin: 'Request from another site',
  bad_request: 'Bad request',
  body_too_large: 'Request body too large',
  card_busy: 'Card busy with another change',
  card_changed: 'Card changed meanwhile',
  category_archived: 'Category archived',
  category_code_taken: 'Account code taken',
  close_policy_changed: 'Close policy changed meanwhile',
  matching_changed: 'Matching transactions changed',
  merchant_rule_exists: 'Merchant already has a rule',
  webhook_target_exists: 'Webhook target name taken',
  client_closed: 'Request cancelled',
  csrf_required: 'CSRF header missing',
  export_busy: 'Too many exports running',
  export_incomplete: 'Export not complete',
  forbidden: 'Not allowed',
  image_too_large: 'Picture too large',
  internal_error: 'Internal error',
  invalid_body: 'Invalid request body',
  invalid_credentials: 'Wrong credentials',
  invalid_id: 'Invalid id',
  invalid_json: 'Malformed JSON',
  invalid_passkey: 'Passkey not accepted',
  invalid_path: 'Invalid path parameter',
  invalid_query: 'Invalid query',
  invalid_request: 'Invalid request',
  invalid_totp: 'Wrong authenticator code',
  invitation_expired: 'Invitation expired',
  invitation_revoked: 'Invitation withdrawn',
  invitation_used: 'Invitation already used',
  last_admin: 'Last admin',
  last_factor: 'Last second factor',
  method_not_allowed: 'Method not allowed',
  no_passkeys: 'No passkeys',
  no_totp: 'No authenticator app',
  no_totp_setup: 'No authenticator setup in progress',
  not_found: 'Not found',
  not_ready: 'Not ready',
  passkey_exists: 'Passkey already registered',
  pdf_active_content: 'PDF with active content',
  person_exists: 'Person already signs in',
  precondition_failed: 'Precondition failed',
  range_not_satisfiable: 'Range not satisfiable',
  rate_limited: 'Too many requests',
  inbox_full: 'Receipt inbox full',
  already_attached: 'Receipt already attached',
  mail_not_set_up: 'Receiving mail not set up',
  receipts_zip_too_large: 'Too many receipts for one ZIP',
  role_from_provider: 'Role set by single sign-on',
  recent_sign_in_required: 'Recent sign-in needed',
  second_factor_enrolment_required: 'Second factor to be set up',
  second_factor_required: 'Second factor required',
  second_factor_unavailable: 'Second factor cannot be checked',
  session_ended: 'Session ended',
  shutting_down: 'Shutting down',
  sso_not_configured: 'Single sign-on not set up',
  step_up_required: 'Second factor needed',
  store_unavailable: 'Session or audit store unavailable',
  sub_account_busy: 'Same name being created',
  sub_account_name_taken: 'Sub account name taken',
  sub_account_not_found: 'Sub account not found',
  too_many_alert_rules: 'Too many alert rules',
  too_many_matching: 'Too many transactions for one change',
  too_many_passkeys: 'Too many passkeys',
  transaction_reviewed: 'Transaction already reviewed',
  unauthenticated: 'Not signed in',
  uploads_busy: 'Too many uploads at once',
  unsupported_file: 'File type not accepted',
  too_many_receipts: 'Too many receipts',
  receipt_already_attached: 'Same receipt already attached',
  upstream_bad_gateway: 'Card service answered unexpectedly',
  upstream_error: 'Card service error',
  upstream_invalid_response: 'Unreadable card service answer',
  upstream_key_rejected: 'Card service refused the key',
  upstream_rejected: 'Card service refused the request',
  upstream_timeout: 'Card service timed out',
  upstream_unavailable: 'Card service unavailable',
  upstream_unreachable: 'Card service unreachable',
  walks_busy: 'Too many long reads running',
} as const satisfies Record<string, string>;
export type ProblemCode = keyof typeof problemTitles;
export const problemCodes = Object.keys(problemTitles) as ProblemCode[];

/**
 * The problem type of a code: `/problems/<code>`, a relative URI reference resolved against the
 * API's origin (with the full path, as RFC 9457 §3.1.1 asks of relative type URIs). It names the
 * type and never changes; it is not a page to fetch (consumers key on it or on `code`).
 */
export const problemType = <C extends ProblemCode>(code: C): `/problems/${C}` =>
  `/problems/${code}`;

/** On 409 `card_changed`: the card's editable values now (`null`: the card has no such limit). */
const cardValuesSchema = z.strictObject({
  name: z.string(),
  minimumCents: z.number().int().nullable(),
  maximumCents: z.number().int().nullable(),
});

/** Which second factors the person may use, and for a passkey the options for the browser. */
const secondFactorSchema = z.strictObject({
  methods: z.array(stepUpMethodSchema),
  passkeyOptions: z.object({ challenge: z.string() }).loose().optional(),
});

/**
 * The extension members each code carries beyond the common ones, and only that code: a code
 * missing here carries none.
 */
export const problemExtensionSchemas = {
  /** Someone else saved first: the card as it is now, to show and to re-apply against. */
  card_changed: z.strictObject({ current: cardValuesSchema }),
  /** Someone else changed the transaction's notes first: them as they are now. */
  notes_changed: z.strictObject({ current: notesSchema }),
  /** Someone else changed the alert rule first (or deleted it and one took its place): it as it is. */
  alert_rule_changed: z.strictObject({ current: alertRuleSchema }),
  /** Another admin changed the close policy first: it as it is now. */
  close_policy_changed: z.strictObject({ current: closePolicySchema }),
  /** A reviewed transaction changes only once reopened: its notes as they are. */
  transaction_reviewed: z.strictObject({ current: notesSchema }),
  /** The transaction has a receipt of the same bytes: that receipt. */
  receipt_already_attached: z.strictObject({ receipt: receiptSchema }),
  /** A guarded action needs a fresh second factor: the ways this person can give one. */
  step_up_required: z.strictObject({ secondFactor: secondFactorSchema }),
  /** The password was right; an admin adds a second factor (with a passkey's options). */
  second_factor_required: z.strictObject({ secondFactor: secondFactorSchema }),
  /** The filter's receipts and what one ZIP may hold: files and bytes (422, before any byte). */
  receipts_zip_too_large: z.strictObject({
    files: z.number().int().nonnegative(),
    bytes: z.number().int().nonnegative(),
    maxFiles: z.number().int().positive(),
    maxBytes: z.number().int().positive(),
  }),
  /** GET /readyz: each dependency and `ok` or why it is not ready. */
  not_ready: z.strictObject({ checks: z.record(z.string(), z.string()) }),
} satisfies Partial<Record<ProblemCode, z.ZodObject>>;
type Extended = keyof typeof problemExtensionSchemas;

/** The extension members of `code`'s problem (none for most codes). */
export type ProblemExtensions<C extends ProblemCode> = C extends Extended
  ? z.infer<(typeof problemExtensionSchemas)[C]>
  : Record<never, never>;
/** The codes that carry extension members of their own. */
export type ExtendedProblemCode = Extended;
/** The codes that carry none. */
export type PlainProblemCode = Exclude<ProblemCode, Extended>;

/** The members every problem has: RFC 9457's, and the BFF's own `code` and `requestId`. */
const common = {
  /** `problemType(code)`. */
  type: z.string(),
  /** `problemTitles[code]`. */
  title: z.string(),
  /** The HTTP status of the answer. */
  status: z.number().int().min(400).max(599),
  /** This occurrence, in a sentence for a person; safe to show. */
  detail: z.string(),
  /** RFC 9457's URI of this occurrence: not sent (the occurrence is named by `requestId`). */
  instance: z.string().optional(),
  /** The same as the answer's `X-Request-Id`: what support asks for. */
  requestId: z.string(),
  /** Seconds until a retry makes sense, on 429 and 503 (the same as `Retry-After`). */
  retryAfterSeconds: z.number().int().nonnegative().optional(),
};

const plainCodes = problemCodes.filter(
  (code): code is PlainProblemCode => !Object.hasOwn(problemExtensionSchemas, code),
) as [PlainProblemCode, ...PlainProblemCode[]];

/**
 * Every error the BFF answers with: an RFC 9457 problem details object, sent as
 * `application/problem+json`. A union on `code`: `card_changed`, `notes_changed`,
 * `alert_rule_changed`, `close_policy_changed` and `transaction_reviewed` always carry `current`,
 * `step_up_required` and `second_factor_required` always carry `secondFactor`, `not_ready`
 * always carries `checks`, `receipts_zip_too_large` its counts and caps, and no problem carries
 * a member that is not its own. `code` is the
 * machine code the BFF has always sent (clients branch on it); `detail` replaced `message`.
 */
export const apiErrorBodySchema = z
  .discriminatedUnion('code', [
    problemExtensionSchemas.card_changed.extend({ ...common, code: z.literal('card_changed') }),
    problemExtensionSchemas.notes_changed.extend({
      ...common,
      code: z.literal('notes_changed'),
    }),
    problemExtensionSchemas.alert_rule_changed.extend({
      ...common,
      code: z.literal('alert_rule_changed'),
    }),
    problemExtensionSchemas.close_policy_changed.extend({
      ...common,
      code: z.literal('close_policy_changed'),
    }),
    problemExtensionSchemas.transaction_reviewed.extend({
      ...common,
      code: z.literal('transaction_reviewed'),
    }),
    problemExtensionSchemas.receipt_already_attached.extend({
      ...common,
      code: z.literal('receipt_already_attached'),
    }),
    problemExtensionSchemas.step_up_required.extend({
      ...common,
      code: z.literal('step_up_required'),
    }),
    problemExtensionSchemas.second_factor_required.extend({
      ...common,
      code: z.literal('second_factor_required'),
    }),
    problemExtensionSchemas.not_ready.extend({ ...common, code: z.literal('not_ready') }),
    problemExtensionSchemas.receipts_zip_too_large.extend({
      ...common,
      code: z.literal('receipts_zip_too_large'),
    }),
    z.strictObject({ ...common, code: z.enum(plainCodes) }),
  ])
  .refine((problem) => problem.type === problemType(problem.code), {
    message: 'type must be /problems/<code>',
    path: ['type'],
  });
/** One problem, narrowed by its `code`. */
export type ApiErrorBody = z.infer<typeof apiErrorBodySchema>;
type PlainProblem = Extract<ApiErrorBody, { code: Exclude<ProblemCode, Extended> }>;
/** The problem of one code, with its own members (`ProblemOf<'card_changed'>['current']`). */
export type ProblemOf<C extends ProblemCode> = C extends Extended
  ? Extract<ApiErrorBody, { code: C }>
  : PlainProblem & { code: C };

/** A page as the BFF returns it. */
export function pageSchema<T extends z.ZodType>(item: T) {
  return z.object({ items: z.array(item), nextCursor: z.string().optional() });
}
