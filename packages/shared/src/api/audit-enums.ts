// The audit trail's fixed value lists, free of any zod import so the SPA's first download
// (the audit screen's URL validation) can use them without pulling in the schema library.

export const auditActions = [
  'card.reveal',
  'card.update',
  'subAccount.create',
  'session.signIn',
  'session.signOut',
  'session.ended',
  'access.denied',
] as const;
export type AuditAction = (typeof auditActions)[number];

export const auditOutcomes = ['success', 'denied', 'failed'] as const;
export type AuditOutcome = (typeof auditOutcomes)[number];
