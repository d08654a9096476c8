import { z } from 'zod';
import { resourceIdSchema, unixMsStringSchema } from '../upstream/common';
import { auditActions, auditMethods, auditOutcomes } from './audit-enums';
import { pageSchema } from './error';
import { roleSchema } from './meta';

export type { AuditMethod } from './audit-enums';
export { auditActions, auditMethods, auditOutcomes };

const limitSnapshot = z.object({
  name: z.string().optional(),
  minimumCents: z.number().int().optional(),
  maximumCents: z.number().int().optional(),
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
  target: z.string().optional(),
  cardId: z.string().optional(),
  last4: z.string().optional(),
  subAccountId: z.string().optional(),
  before: limitSnapshot.optional(),
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
  outcome: z.enum(auditOutcomes).optional(),
  cardId: resourceIdSchema.optional(),
  from: unixMsStringSchema.optional(),
  to: unixMsStringSchema.optional(),
};

export const auditListQuerySchema = z
  .strictObject({
    ...auditFilterShape,
    cursor: z
      .string()
      .regex(/^\d{1,15}$/, 'must be the id of a record from the previous page')
      .optional(),
  })
  .refine((q) => q.from === undefined || q.to === undefined || q.from <= q.to, {
    message: '"from" must not be after "to"',
    path: ['from'],
  });
export type AuditListQuery = z.input<typeof auditListQuerySchema>;
/** The filters as a store receives them (parsed: `from`/`to` are numbers). */
export type AuditFilter = Omit<z.output<typeof auditListQuerySchema>, 'cursor'>;

export const auditPageSchema = pageSchema(auditRecordSchema);
export type AuditPage = z.infer<typeof auditPageSchema>;
