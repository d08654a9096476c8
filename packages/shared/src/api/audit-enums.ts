// The audit trail's fixed value lists, free of any zod import so the SPA's first download
// (the audit screen's URL validation) can use them without pulling in the schema library.

export const auditActions = [
  'card.reveal',
  'card.update',
  /** A card's owner and team given, changed or taken off (Card Console's, not the service's). */
  'card.owner',
  'subAccount.create',
  'session.signIn',
  'session.signOut',
  'session.ended',
  'session.stepUp',
  'factor.enrolled',
  'factor.removed',
  /** A person's passkey given another name (its before and after). */
  'factor.renamed',
  'access.denied',
  'audit.export',
  'transaction.annotate',
  /** One change of every transaction a filter gave: its filter and count (each row has its own record). */
  'transaction.bulkNotes',
  'category.create',
  'category.update',
  'merchantRule.create',
  'merchantRule.delete',
  'closePolicy.update',
  /** A merchant renamed, or made one with another, by its name; and its name taken off. */
  'merchant.name',
  'merchant.unname',
  /** The security policy: whether everyone must have a second factor. */
  'securityPolicy.update',
  'receipt.add',
  'receipt.remove',
  /** A file into a person's receipt inbox (an upload, or mail to their forwarding address). */
  'inbox.receive',
  /** An inbox item attached to a transaction: confirmed by its person, or matched for certain. */
  'inbox.attach',
  'inbox.discard',
  /** A person's forwarding address replaced: mail to the old one is refused from then on. */
  'inbox.rotateAddress',
  'alertRule.create',
  'alertRule.update',
  'alertRule.delete',
  'alertRule.test',
  'webhookTarget.create',
  'webhookTarget.delete',
  'person.invite',
  'person.invitationWithdraw',
  'person.signUp',
  'person.role',
  'person.disable',
  'person.enable',
  'person.remove',
  'person.sessionsEnd',
  /** `pnpm users`: a person added with a password, linked to or unlinked from single sign-on. */
  'person.add',
  'person.link',
  'person.unlink',
] as const;
export type AuditAction = (typeof auditActions)[number];

/**
 * What a refused request was trying to do, on `access.denied` records (a role without the
 * right, a request from another site): the route's operation, so a denied reveal and a
 * denied edit read differently. Operations that are audit actions share their names.
 */
export const auditAttempts = [
  'card.reveal',
  'card.update',
  'card.limitImpact',
  'card.owner',
  'subAccount.create',
  'session.signIn',
  'session.signOut',
  'session.stepUp',
  'factors.view',
  'factors.change',
  'audit.view',
  'audit.export',
  'transaction.annotate',
  'categories.change',
  'merchantRules.change',
  'closePolicy.change',
  'merchants.change',
  'securityPolicy.change',
  'alertRules.change',
  'alerts.markRead',
  'webhookTargets.change',
  'people.view',
  'people.change',
  'invitation.accept',
] as const;
export type AuditAttempt = (typeof auditAttempts)[number];

/**
 * `started`: a change at the card service (which cannot be rolled back), recorded before it is
 * asked for; its `success` or `failed` record follows with the same request id.
 */
export const auditOutcomes = ['success', 'denied', 'failed', 'started'] as const;
export type AuditOutcome = (typeof auditOutcomes)[number];

/**
 * How a person proved who they are, on sign-in, step-up and factor records: a password
 * alone, a password with a TOTP code or a passkey, single sign-on at the company's identity
 * provider, or (step-up, factors) a TOTP code, a passkey or a fresh provider sign-in.
 */
export const auditMethods = [
  'password',
  'password+totp',
  'password+passkey',
  'sso',
  'totp',
  'passkey',
  'provider',
] as const;
export type AuditMethod = (typeof auditMethods)[number];
