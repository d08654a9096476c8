// The API's contract, part one: every endpoint by name, with its method, path and who may call it.
// The BFF builds its router and authorization from it (apps/bff/src/core/endpoint.ts), the SPA's
// one client its requests (apps/web/src/lib/api-client.ts). The second part, `schemas.ts`, holds
// each endpoint's params, query, body and response schemas under the same names; it is kept apart
// so that this table, with no zod in it, can sit in the SPA's first download while the schemas
// load with the first answer (docs/decisions/0091-first-download-budget.md).
import type { Role } from '../api/meta';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** 'public': anyone; 'signedIn': any signed-in person; otherwise the roles allowed. */
export type Access = 'public' | 'signedIn' | readonly Role[];
export const everyone = ['finance', 'admin'] as const satisfies readonly Role[];
export const admins = ['admin'] as const satisfies readonly Role[];

export interface Route {
  method: HttpMethod;
  /** The path under `/api`, with `:name` for each path parameter (`/cards/:id`). */
  path: `/${string}`;
  access: Access;
  /** The body is not JSON: CSV text (an import) or a file's bytes (an upload). */
  sends?: 'csv' | 'file';
  /**
   * The answer is not JSON: a file to download (a CSV export, a receipt, a ZIP), or a
   * redirect, the endpoint being a navigation the browser follows (single sign-on).
   */
  answers?: 'file' | 'redirect';
}

export const routes = {
  // meta
  'meta.get': { method: 'GET', path: '/meta', access: 'public' },
  'meta.demoAdminCode': { method: 'GET', path: '/meta/demo-admin-code', access: 'public' },
  // session
  'session.signIn': { method: 'POST', path: '/session', access: 'public' },
  'session.get': { method: 'GET', path: '/session', access: 'signedIn' },
  'session.signOut': { method: 'DELETE', path: '/session', access: 'signedIn' },
  'session.stepUpOptions': { method: 'POST', path: '/session/step-up-options', access: everyone },
  'session.stepUp': { method: 'POST', path: '/session/step-up', access: everyone },
  // sso
  'sso.start': { method: 'GET', path: '/sso/start', access: 'public', answers: 'redirect' },
  'sso.stepUp': { method: 'GET', path: '/sso/step-up', access: everyone, answers: 'redirect' },
  'sso.callback': { method: 'GET', path: '/sso/callback', access: 'public', answers: 'redirect' },
  // security
  'security.secondFactors': { method: 'GET', path: '/second-factors', access: everyone },
  'security.setTotp': { method: 'PATCH', path: '/second-factors/totp', access: everyone },
  'security.totpSetup': {
    method: 'POST',
    path: '/second-factors/totp/setup',
    access: everyone,
  },
  'security.confirmTotp': { method: 'POST', path: '/second-factors/totp', access: everyone },
  'security.registrationOptions': {
    method: 'POST',
    path: '/passkeys/registration-options',
    access: everyone,
  },
  'security.addPasskey': { method: 'POST', path: '/passkeys', access: everyone },
  'security.renamePasskey': { method: 'PATCH', path: '/passkeys/:id', access: everyone },
  'security.removePasskey': { method: 'DELETE', path: '/passkeys/:id', access: everyone },
  // security policy: whether everyone must have a second factor
  'securityPolicy.get': { method: 'GET', path: '/security-policy', access: everyone },
  'securityPolicy.update': { method: 'PUT', path: '/security-policy', access: admins },
  // sub-accounts
  'subAccounts.list': { method: 'GET', path: '/sub-accounts', access: everyone },
  'subAccounts.create': { method: 'POST', path: '/sub-accounts', access: admins },
  // cards
  'cards.list': { method: 'GET', path: '/cards', access: everyone },
  'cards.owners': { method: 'GET', path: '/card-owners', access: everyone },
  'cards.get': { method: 'GET', path: '/cards/:id', access: everyone },
  'cards.setOwner': { method: 'PUT', path: '/cards/:id/owner', access: admins },
  'cards.update': { method: 'PATCH', path: '/cards/:id', access: admins },
  'cards.limitImpact': { method: 'GET', path: '/cards/:id/limit-impact', access: admins },
  'cards.reveal': { method: 'POST', path: '/cards/:id/reveal', access: admins },
  // transactions
  'transactions.list': { method: 'GET', path: '/transactions', access: everyone },
  'transactions.exportCsv': {
    method: 'GET',
    path: '/transactions/export.csv',
    access: everyone,
    answers: 'file',
  },
  'transactions.exportReceipt': {
    method: 'GET',
    path: '/transactions/export-receipts/:requestId',
    access: everyone,
  },
  'transactions.get': { method: 'GET', path: '/transactions/:id', access: everyone },
  // transaction-index
  'index.transactions': { method: 'GET', path: '/index/transactions', access: everyone },
  'index.totals': { method: 'GET', path: '/index/transactions/totals', access: everyone },
  'index.queue': { method: 'GET', path: '/index/transactions/queue', access: everyone },
  'index.queueNext': {
    method: 'GET',
    path: '/index/transactions/queue/next',
    access: everyone,
  },
  'index.exportCsv': {
    method: 'GET',
    path: '/index/transactions/export.csv',
    access: everyone,
    answers: 'file',
  },
  'index.receiptsZip': {
    method: 'GET',
    path: '/index/transactions/receipts.zip',
    access: everyone,
    answers: 'file',
  },
  'index.card': { method: 'GET', path: '/index/cards/:id', access: everyone },
  'index.cards': { method: 'GET', path: '/index/cards', access: everyone },
  'index.cardMoney': { method: 'GET', path: '/index/card-money', access: everyone },
  'index.cardSubAccounts': { method: 'GET', path: '/index/card-sub-accounts', access: everyone },
  'index.attention': { method: 'GET', path: '/index/attention', access: everyone },
  'index.categories': { method: 'GET', path: '/index/categories', access: everyone },
  'index.merchant': { method: 'GET', path: '/index/merchant', access: everyone },
  'index.nameMerchant': { method: 'PUT', path: '/index/merchants/name', access: admins },
  'index.unnameMerchant': { method: 'DELETE', path: '/index/merchants/name', access: admins },
  // notes
  'notes.get': { method: 'GET', path: '/transactions/:id/notes', access: everyone },
  'notes.update': { method: 'PATCH', path: '/transactions/:id/notes', access: everyone },
  'receipts.list': { method: 'GET', path: '/transactions/:id/receipts', access: everyone },
  'receipts.upload': {
    method: 'POST',
    path: '/transactions/:id/receipts',
    access: everyone,
    sends: 'file',
  },
  'receipts.download': {
    method: 'GET',
    path: '/transactions/:id/receipts/:receiptId',
    access: everyone,
    answers: 'file',
  },
  'receipts.remove': {
    method: 'DELETE',
    path: '/transactions/:id/receipts/:receiptId',
    access: everyone,
  },
  'notes.updateMany': { method: 'POST', path: '/transactions/notes', access: everyone },
  // receipt inbox
  'inbox.list': { method: 'GET', path: '/receipt-inbox', access: everyone },
  'inbox.upload': { method: 'POST', path: '/receipt-inbox', access: everyone, sends: 'file' },
  'inbox.file': {
    method: 'GET',
    path: '/receipt-inbox/:id/file',
    access: everyone,
    answers: 'file',
  },
  'inbox.attach': { method: 'POST', path: '/receipt-inbox/:id/attach', access: everyone },
  'inbox.discard': { method: 'DELETE', path: '/receipt-inbox/:id', access: everyone },
  'inbox.address': { method: 'GET', path: '/receipt-inbox/address', access: everyone },
  'inbox.rotateAddress': { method: 'POST', path: '/receipt-inbox/address', access: everyone },
  'notes.updateMatching': {
    method: 'POST',
    path: '/transactions/notes/matching',
    access: everyone,
  },
  'merchantRules.list': { method: 'GET', path: '/merchant-rules', access: everyone },
  'merchantRules.create': { method: 'POST', path: '/merchant-rules', access: admins },
  'merchantRules.remove': { method: 'DELETE', path: '/merchant-rules/:id', access: admins },
  'accountingCategories.list': { method: 'GET', path: '/accounting-categories', access: everyone },
  'accountingCategories.create': { method: 'POST', path: '/accounting-categories', access: admins },
  'accountingCategories.import': {
    method: 'POST',
    path: '/accounting-categories/import',
    access: admins,
    sends: 'csv',
  },
  'accountingCategories.update': {
    method: 'PATCH',
    path: '/accounting-categories/:id',
    access: admins,
  },
  // close-policy
  'closePolicy.get': { method: 'GET', path: '/close-policy', access: everyone },
  'closePolicy.update': { method: 'PUT', path: '/close-policy', access: admins },
  // alerts
  'alerts.rules': { method: 'GET', path: '/alerts/rules', access: everyone },
  'alerts.createRule': { method: 'POST', path: '/alerts/rules', access: everyone },
  'alerts.updateRule': { method: 'PUT', path: '/alerts/rules/:id', access: everyone },
  'alerts.deleteRule': { method: 'DELETE', path: '/alerts/rules/:id', access: everyone },
  'alerts.testRule': { method: 'POST', path: '/alerts/rules/:id/test', access: everyone },
  'alerts.inbox': { method: 'GET', path: '/alerts/inbox', access: everyone },
  'alerts.unreadCount': { method: 'GET', path: '/alerts/inbox/unread-count', access: everyone },
  'alerts.markRead': { method: 'POST', path: '/alerts/inbox/read', access: everyone },
  'alerts.webhooks': { method: 'GET', path: '/alerts/webhooks', access: admins },
  'alerts.createWebhook': { method: 'POST', path: '/alerts/webhooks', access: admins },
  'alerts.deleteWebhook': { method: 'DELETE', path: '/alerts/webhooks/:id', access: admins },
  // people
  'people.list': { method: 'GET', path: '/people', access: admins },
  'people.invite': { method: 'POST', path: '/people/invitations', access: admins },
  'people.cancelInvitation': {
    method: 'DELETE',
    path: '/people/invitations/:email',
    access: admins,
  },
  'people.setRole': { method: 'PUT', path: '/people/:email/role', access: admins },
  'people.disable': { method: 'POST', path: '/people/:email/disable', access: admins },
  'people.enable': { method: 'POST', path: '/people/:email/enable', access: admins },
  'people.remove': { method: 'DELETE', path: '/people/:email', access: admins },
  'people.sessions': { method: 'GET', path: '/people/:email/sessions', access: admins },
  'people.endSessions': { method: 'DELETE', path: '/people/:email/sessions', access: admins },
  'people.endSession': { method: 'DELETE', path: '/people/:email/sessions/:id', access: admins },
  'invitations.lookup': { method: 'POST', path: '/invitations/lookup', access: 'public' },
  'invitations.authenticator': {
    method: 'POST',
    path: '/invitations/authenticator',
    access: 'public',
  },
  'invitations.accept': { method: 'POST', path: '/invitations/accept', access: 'public' },
  // overview
  'overview.get': { method: 'GET', path: '/overview', access: everyone },
  // audit
  'audit.list': { method: 'GET', path: '/audit', access: admins },
  'audit.exportCsv': { method: 'GET', path: '/audit/export.csv', access: admins, answers: 'file' },
} as const satisfies Record<string, Route>;

export type EndpointName = keyof typeof routes;
