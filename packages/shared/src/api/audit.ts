import { z } from 'zod';
import { resourceIdSchema, unixMsStringSchema } from '../upstream/common';
import { auditActions, auditAttempts, auditMethods, auditOutcomes } from './audit-enums';
import { pageSchema } from './error';
import { roleSchema } from './meta';

export type { AuditAttempt, AuditMethod } from './audit-enums';
export { auditActions, auditAttempts, auditMethods, auditOutcomes };

/**
 * A record's before and after: a card's name and limits; a transaction's notes (memo, the
 * category as `code name`, tags, reviewed); an accounting category's code, name and archived; a merchant rule's merchant and category;
 * an alert rule's name and what it watches and sends (`rule`, one line); a webhook target's name
 * and `destination`.
 */
const limitSnapshot = z.object({
  name: z.string().optional(),
  minimumCents: z.number().int().optional(),
  maximumCents: z.number().int().optional(),
  memo: z.string().optional(),
  category: z.string().optional(),
  tags: z.array(z.string()).optional(),
  reviewed: z.boolean().optional(),
  code: z.string().optional(),
  archived: z.boolean().optional(),
  merchant: z.string().optional(),
  /** A receipt's file name. */
  receipt: z.string().optional(),
  /** An alert rule in one line: kind, threshold, scope, channels, on or off, team or own. */
  rule: z.string().optional(),
  /** The close policy: receipts from this amount (`$75.00`, or `none`). */
  receiptFrom: z.string().optional(),
  /** The close policy: the categories whose transactions need a memo, as `code name`. */
  memoCategories: z.array(z.string()).optional(),
  /** The security policy: who must have a second factor (`everyone`, or `admins`). */
  secondFactorFor: z.string().optional(),
  /** A card's owner (`Name <email>`, or the name alone) and team (`card-owners.ts`). */
  owner: z.string().optional(),
  team: z.string().optional(),
  /** A webhook target's destination: its URL's origin (`https://hooks.example.com`). */
  destination: z.string().optional(),
});

/** One line of the append-only audit trail. Never holds a PAN or CVV. */
export const auditRecordSchema = z.object({
  id: z.string(),
  at: z.string(),
  actor: z.string(),
  role: roleSchema.optional(),
  action: z.enum(auditActions),
  outcome: z.enum(auditOutcomes),
  /** Sign-in, step-up and factor records: how the person proved who they are. */
  method: z.enum(auditMethods).optional(),
  /** `access.denied` records: what the refused request was trying to do. */
  attempted: z.enum(auditAttempts).optional(),
  target: z.string().optional(),
  cardId: z.string().optional(),
  last4: z.string().optional(),
  subAccountId: z.string().optional(),
  before: limitSnapshot.optional(),
  /** The values after a success; on a failed or refused change, the values it attempted. */
  after: limitSnapshot.optional(),
  reason: z.string().optional(),
  detail: z.string().optional(),
  requestId: z.string(),
});
export type AuditRecord = z.infer<typeof auditRecordSchema>;

/**
 * The audit screen's filters (every one optional, combined with AND). `actor` is the exact
 * email; `from`/`to` are inclusive Unix-ms bounds on the record's time; newest first, and
 * `cursor` is the last record's id from the previous page (keyset paging).
 */
const auditFilterShape = {
  actor: z.string().trim().toLowerCase().min(1).max(254).optional(),
  action: z.enum(auditActions).optional(),
  /** Refusals of one kind: `action=access.denied&attempted=card.reveal`. */
  attempted: z.enum(auditAttempts).optional(),
  outcome: z.enum(auditOutcomes).optional(),
  cardId: resourceIdSchema.optional(),
  from: unixMsStringSchema.optional(),
  to: unixMsStringSchema.optional(),
};

const fromNotAfterTo = (q: { from?: number; to?: number }) =>
  q.from === undefined || q.to === undefined || q.from <= q.to;
const fromAfterTo = { message: '"from" must not be after "to"', path: ['from'] };

export const auditListQuerySchema = z
  .strictObject({
    ...auditFilterShape,
    cursor: z
      .string()
      .regex(/^\d{1,15}$/, 'must be the id of a record from the previous page')
      .optional(),
  })
  .refine(fromNotAfterTo, fromAfterTo);
export type AuditListQuery = z.input<typeof auditListQuerySchema>;
/** The filters as a store receives them (parsed: `from`/`to` are numbers). */
export type AuditFilter = Omit<z.output<typeof auditListQuerySchema>, 'cursor'>;

const ZONE_NAME = /^[A-Za-z][A-Za-z0-9_+\-/]{0,63}$/;

/** Whether `zone` names an IANA time zone the runtime knows (`Europe/Paris`, `UTC`). */
export function isTimeZone(zone: string): boolean {
  if (!ZONE_NAME.test(zone)) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/**
 * GET /api/audit/export.csv: every record the screen's filters match, with times also in
 * `tz` (the person's zone; UTC when not given).
 */
export const auditExportQuerySchema = z
  .strictObject({
    ...auditFilterShape,
    tz: z.string().refine(isTimeZone, 'must be a time zone name, like Europe/Paris').default('UTC'),
  })
  .refine(fromNotAfterTo, fromAfterTo);
export type AuditExportQuery = z.input<typeof auditExportQuerySchema>;

/**
 * A record as the audit screen lists it: with its card's name and last 4 where the BFF's card
 * directory knows the card (joined when read, never part of the record or its hash).
 */
export const auditListItemSchema = auditRecordSchema.extend({
  card: z.object({ name: z.string(), last4: z.string().optional() }).optional(),
});
export type AuditListItem = z.infer<typeof auditListItemSchema>;

export const auditPageSchema = pageSchema(auditListItemSchema);
export type AuditPage = z.infer<typeof auditPageSchema>;
