import type { AuditAction } from '@card-console/shared/api/audit-enums';

/** Each action in words, for the records and the action filter. */
export const ACTION_LABELS: Record<AuditAction, string> = {
  'card.reveal': 'Revealed card details',
  'card.update': 'Changed card',
  'subAccount.create': 'Created sub account',
  'session.signIn': 'Signed in',
  'session.signOut': 'Signed out',
  'session.ended': 'Session ended',
  'access.denied': 'Access denied',
};
