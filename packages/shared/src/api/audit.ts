import { z } from 'zod';
import { pageSchema } from './error';
import { roleSchema } from './meta';

export const auditActions = [
  'card.reveal',
  'card.update',
  'subAccount.create',
  'session.signIn',
  'session.signOut',
  'session.ended',
  'access.denied',
] as const;

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
  outcome: z.enum(['success', 'denied', 'failed']),
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

export const auditListQuerySchema = z.strictObject({
  cursor: z
    .string()
    .regex(/^\d{1,12}$/)
    .optional(),
});
export const auditPageSchema = pageSchema(auditRecordSchema);
export type AuditPage = z.infer<typeof auditPageSchema>;
