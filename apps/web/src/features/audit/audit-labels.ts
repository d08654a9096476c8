import type { AuditAction, AuditMethod } from '@card-console/shared/api/audit-enums';

/** Each action in words, for the records and the action filter. */
export const ACTION_LABELS: Record<AuditAction, string> = {
  'card.reveal': 'Revealed card details',
  'card.update': 'Changed card',
  'subAccount.create': 'Created sub account',
  'session.signIn': 'Signed in',
  'session.signOut': 'Signed out',
  'session.ended': 'Session ended',
  'session.stepUp': 'Stepped up',
  'factor.enrolled': 'Factor added',
  'factor.removed': 'Factor removed',
  'access.denied': 'Access denied',
  'audit.export': 'Exported audit trail',
};

/** How the person proved who they are (sign-in, step-up and factor records). */
export const METHOD_LABELS: Record<AuditMethod, string> = {
  password: 'Password',
  'password+totp': 'Password + authenticator code',
  'password+passkey': 'Password + passkey',
  sso: 'SSO',
  totp: 'Authenticator code',
  passkey: 'Passkey',
  provider: 'SSO, signed in again',
};
