import type { AuditAction, AuditAttempt, AuditMethod } from '@card-console/shared/api/audit-enums';

/** Each action in words, for the records and the action filter: what was done or tried. */
export const ACTION_LABELS: Record<AuditAction, string> = {
  'card.reveal': 'Reveal card',
  'card.update': 'Edit card',
  'subAccount.create': 'Create sub account',
  'session.signIn': 'Sign in',
  'session.signOut': 'Sign out',
  'session.ended': 'Session ended',
  'session.stepUp': 'Step up',
  'factor.enrolled': 'Add second factor',
  'factor.removed': 'Remove second factor',
  'access.denied': 'Access denied',
  'audit.export': 'Export audit trail',
  'transaction.annotate': 'Edit transaction notes',
  'transaction.bulkNotes': 'Change notes of matching transactions',
  'category.create': 'Add accounting category',
  'category.update': 'Edit accounting category',
  'merchantRule.create': 'Add merchant rule',
  'merchantRule.delete': 'Remove merchant rule',
  'closePolicy.update': 'Change close policy',
  'securityPolicy.update': 'Change security policy',
  'receipt.add': 'Attach receipt',
  'receipt.remove': 'Remove receipt',
  'inbox.receive': 'Receipt into inbox',
  'inbox.attach': 'Attach inbox receipt',
  'inbox.discard': 'Discard inbox receipt',
  'inbox.rotateAddress': 'New forwarding address',
  'alertRule.create': 'Add alert rule',
  'webhookTarget.create': 'Add webhook target',
  'webhookTarget.delete': 'Remove webhook target',
  'alertRule.update': 'Edit alert rule',
  'alertRule.delete': 'Remove alert rule',
  'alertRule.test': 'Send a test alert',
  'person.invite': 'Invite person',
  'person.invitationWithdraw': 'Withdraw invitation',
  'person.signUp': 'Sign up from invitation',
  'person.role': 'Change role',
  'person.disable': 'Disable person',
  'person.enable': 'Enable person',
  'person.remove': 'Remove person',
  'person.sessionsEnd': "End person's sessions",
  'person.add': 'Add person',
  'person.link': 'Link single sign-on',
  'person.unlink': 'Unlink single sign-on',
};

/** What a refused request was trying to do ("Reveal card — denied"). */
export const ATTEMPT_LABELS: Record<AuditAttempt, string> = {
  'card.reveal': 'Reveal card',
  'card.update': 'Edit card',
  'card.limitImpact': 'Preview limit change',
  'subAccount.create': 'Create sub account',
  'session.signIn': 'Sign in',
  'session.signOut': 'Sign out',
  'session.stepUp': 'Step up',
  'factors.view': 'View second factors',
  'factors.change': 'Change second factors',
  'audit.view': 'View audit trail',
  'audit.export': 'Export audit trail',
  'transaction.annotate': 'Edit transaction notes',
  'categories.change': 'Change chart of accounts',
  'merchantRules.change': 'Change merchant rules',
  'closePolicy.change': 'Change close policy',
  'securityPolicy.change': 'Change security policy',
  'alertRules.change': 'Change alert rules',
  'webhookTargets.change': 'Change webhook targets',
  'alerts.markRead': 'Mark alerts read',
  'people.view': 'View people',
  'people.change': 'Change people',
  'invitation.accept': 'Accept invitation',
};

/** "Reveal card — denied": a refusal, named by what it refused. */
export const deniedLabel = (attempt: AuditAttempt) => `${ATTEMPT_LABELS[attempt]} — denied`;

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

/** The BFF's codes for why something was refused or failed, in words; others show as written. */
export const DETAIL_LABELS: Record<string, string> = {
  bad_origin: 'Sent from another site',
  invalid_id: 'A card number where an id belongs',
  rate_limited: 'Too many attempts',
  step_up_required: 'Second factor needed',
  step_up_failures: 'Too many wrong second factors',
  invalid_totp: 'Wrong authenticator code',
  invalid_passkey: 'Passkey not accepted',
  card_changed: 'Card changed meanwhile',
  card_busy: 'Card busy with another change',
  not_found: 'Not found',
  sub_account_name_taken: 'Name already taken',
  sub_account_busy: 'Same name being created',
};
