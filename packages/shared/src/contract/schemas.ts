// The API's contract, part two: each endpoint's schemas, under its name in `routes.ts`. The BFF
// checks requests and answers with them; the SPA's client loads them with its first answer and
// parses every answer with them. An endpoint reads no params, query or body it does not declare
// here, and answers nothing its `response` does not hold (`z.undefined()`: 204 No Content). A
// route that `answers` a file or a redirect has no `response`.
import { z } from 'zod';
import {
  accountingCategoryCreateSchema,
  accountingCategoryListSchema,
  accountingCategoryPatchSchema,
  accountingCategorySchema,
  chartImportResultSchema,
  merchantRuleCreateSchema,
  merchantRuleListSchema,
  merchantRuleSchema,
} from '../api/accounting-categories';
import {
  alertRuleDeleteQuerySchema,
  alertRuleInputSchema,
  alertRuleListSchema,
  alertRuleSchema,
  alertRuleUpdateSchema,
  alertTestResultSchema,
  inboxPageSchema,
  inboxQuerySchema,
  markReadResultSchema,
  markReadSchema,
  unreadCountSchema,
  webhookTargetCreatedSchema,
  webhookTargetInputSchema,
  webhookTargetListSchema,
} from '../api/alerts';
import { auditExportQuerySchema, auditListQuerySchema, auditPageSchema } from '../api/audit';
import {
  cardOwnerListSchema,
  cardOwnershipChangeSchema,
  cardOwnershipSchema,
} from '../api/card-owners';
import {
  cardListQuerySchema,
  cardPageSchema,
  cardPatchBodySchema,
  cardSchema,
  revealBodySchema,
  revealResponseSchema,
} from '../api/cards';
import { closePolicySchema, closePolicyUpdateSchema } from '../api/close-policy';
import { demoAdminCodeResponseSchema, metaResponseSchema } from '../api/meta';
import {
  bulkNotesChangeSchema,
  bulkNotesResultSchema,
  notesChangeSchema,
  notesSchema,
  receiptListSchema,
  receiptSchema,
} from '../api/notes';
import { notesMatchingChangeSchema, notesMatchingResultSchema } from '../api/notes-matching';
import {
  limitImpactQuerySchema,
  limitImpactSchema,
  overviewQuerySchema,
  overviewSchema,
} from '../api/overview';
import {
  acceptInvitationSchema,
  invitationAcceptedSchema,
  invitationAuthenticatorSchema,
  invitationCreatedSchema,
  invitationInputSchema,
  invitationLookupSchema,
  invitationViewSchema,
  peopleEmailSchema,
  peopleListSchema,
  personViewSchema,
  roleChangeSchema,
  sessionListSchema,
} from '../api/people';
import {
  inboxAddressSchema,
  inboxAttachSchema,
  inboxItemSchema,
  inboxListSchema,
} from '../api/receipt-inbox';
import {
  passkeyEnrolBodySchema,
  passkeyIdSchema,
  passkeyOptionsSchema,
  passkeyRenameBodySchema,
  passkeySummarySchema,
  secondFactorsResponseSchema,
  totpConfirmBodySchema,
  totpSettingBodySchema,
  totpSetupResponseSchema,
} from '../api/security';
import { securityPolicySchema, securityPolicyUpdateSchema } from '../api/security-policy';
import {
  sessionResponseSchema,
  signInBodySchema,
  signOutResponseSchema,
  ssoCallbackQuerySchema,
  ssoReturnQuerySchema,
  stepUpBodySchema,
} from '../api/session';
import {
  subAccountCreateBodySchema,
  subAccountCreatedSchema,
  subAccountListQuerySchema,
  subAccountPageSchema,
} from '../api/sub-accounts';
import {
  attentionQuerySchema,
  attentionSchema,
  cardMoneyQuerySchema,
  cardSubAccountsSchema,
  cardsMoneySchema,
  categoryCatalogSchema,
  indexCardListQuerySchema,
  indexCardListSchema,
  indexCardSchema,
  indexExportQuerySchema,
  indexMerchantQuerySchema,
  indexMerchantSchema,
  indexPageSchema,
  indexQuerySchema,
  indexQueueNextSchema,
  indexQueueQuerySchema,
  indexQueueSchema,
  indexTotalsAnswerSchema,
  indexTotalsQuerySchema,
  merchantNameChangeSchema,
  merchantNamedSchema,
  merchantNameResetSchema,
} from '../api/transaction-index';
import {
  exportReceiptSchema,
  exportRequestIdSchema,
  transactionExportQuerySchema,
  transactionListQuerySchema,
  transactionPageSchema,
  transactionSchema,
} from '../api/transactions';
import { resourceIdSchema } from '../upstream/common';
import type { EndpointName } from './routes';

/** The schemas of one endpoint's parts; a part it does not declare, it does not read. */
export interface EndpointSchemas {
  /** Path parameters by name: every `:name` in the route's path has one. */
  params?: Record<string, z.ZodType<unknown, string>>;
  query?: z.ZodType;
  /** The JSON body, or the CSV text of a route that `sends: 'csv'`. */
  body?: z.ZodType;
  response?: z.ZodType;
}

const byId = { id: resourceIdSchema };
const byEmail = { email: peopleEmailSchema };
const bySession = {
  email: peopleEmailSchema,
  id: z
    .string()
    .min(1, 'id must not be empty')
    .max(100, 'id is too long')
    .regex(/^[A-Za-z0-9_-]+$/, 'id is not a session reference'),
};
const receiptParams = { id: resourceIdSchema, receiptId: resourceIdSchema };

export const endpointSchemas = {
  // meta
  'meta.get': { response: metaResponseSchema },
  'meta.demoAdminCode': { response: demoAdminCodeResponseSchema },
  // session
  'session.signIn': { body: signInBodySchema, response: sessionResponseSchema },
  'session.get': { response: sessionResponseSchema },
  'session.signOut': { response: signOutResponseSchema.optional() },
  'session.stepUpOptions': { response: passkeyOptionsSchema },
  'session.stepUp': { body: stepUpBodySchema, response: sessionResponseSchema },
  // sso
  'sso.start': { query: ssoReturnQuerySchema },
  'sso.stepUp': { query: ssoReturnQuerySchema },
  'sso.callback': { query: ssoCallbackQuerySchema },
  // security
  'security.secondFactors': { response: secondFactorsResponseSchema },
  'security.setTotp': { body: totpSettingBodySchema, response: secondFactorsResponseSchema },
  'security.totpSetup': { response: totpSetupResponseSchema },
  'security.confirmTotp': { body: totpConfirmBodySchema, response: secondFactorsResponseSchema },
  'security.registrationOptions': { response: passkeyOptionsSchema },
  'security.addPasskey': { body: passkeyEnrolBodySchema, response: passkeySummarySchema },
  'security.renamePasskey': {
    params: { id: passkeyIdSchema },
    body: passkeyRenameBodySchema,
    response: passkeySummarySchema,
  },
  'security.removePasskey': { params: { id: passkeyIdSchema }, response: z.undefined() },
  // security policy
  'securityPolicy.get': { response: securityPolicySchema },
  'securityPolicy.update': { body: securityPolicyUpdateSchema, response: securityPolicySchema },
  // sub-accounts
  'subAccounts.list': { query: subAccountListQuerySchema, response: subAccountPageSchema },
  'subAccounts.create': { body: subAccountCreateBodySchema, response: subAccountCreatedSchema },
  // cards
  'cards.list': { query: cardListQuerySchema, response: cardPageSchema },
  'cards.owners': { response: cardOwnerListSchema },
  'cards.get': { params: byId, response: cardSchema },
  'cards.setOwner': {
    params: byId,
    body: cardOwnershipChangeSchema,
    response: cardOwnershipSchema,
  },
  'cards.update': { params: byId, body: cardPatchBodySchema, response: cardSchema },
  'cards.limitImpact': { params: byId, query: limitImpactQuerySchema, response: limitImpactSchema },
  'cards.reveal': { params: byId, body: revealBodySchema, response: revealResponseSchema },
  // transactions
  'transactions.list': { query: transactionListQuerySchema, response: transactionPageSchema },
  'transactions.exportCsv': { query: transactionExportQuerySchema },
  'transactions.exportReceipt': {
    params: { requestId: exportRequestIdSchema },
    response: exportReceiptSchema,
  },
  'transactions.get': { params: byId, response: transactionSchema },
  // transaction-index
  'index.transactions': { query: indexQuerySchema, response: indexPageSchema },
  'index.totals': { query: indexTotalsQuerySchema, response: indexTotalsAnswerSchema },
  'index.queue': { query: indexQueueQuerySchema, response: indexQueueSchema },
  'index.queueNext': { query: indexQueueQuerySchema, response: indexQueueNextSchema },
  'index.exportCsv': { query: indexExportQuerySchema },
  'index.receiptsZip': { query: indexExportQuerySchema },
  'index.card': { params: byId, response: indexCardSchema },
  'index.cards': { query: indexCardListQuerySchema, response: indexCardListSchema },
  'index.cardMoney': { query: cardMoneyQuerySchema, response: cardsMoneySchema },
  'index.cardSubAccounts': { response: cardSubAccountsSchema },
  'index.attention': { query: attentionQuerySchema, response: attentionSchema },
  'index.categories': { response: categoryCatalogSchema },
  'index.merchant': { query: indexMerchantQuerySchema, response: indexMerchantSchema },
  'index.nameMerchant': { body: merchantNameChangeSchema, response: merchantNamedSchema },
  'index.unnameMerchant': { query: merchantNameResetSchema, response: merchantNamedSchema },
  // notes
  'notes.get': { params: byId, response: notesSchema },
  'notes.update': { params: byId, body: notesChangeSchema, response: notesSchema },
  'receipts.list': { params: byId, response: receiptListSchema },
  'receipts.upload': { params: byId, response: receiptSchema },
  'receipts.download': { params: receiptParams },
  'receipts.remove': { params: receiptParams, response: z.undefined() },
  'notes.updateMany': { body: bulkNotesChangeSchema, response: bulkNotesResultSchema },
  'inbox.list': { response: inboxListSchema },
  'inbox.upload': { response: inboxItemSchema },
  'inbox.file': { params: byId },
  'inbox.attach': {
    params: byId,
    body: inboxAttachSchema,
    response: inboxItemSchema,
  },
  'inbox.discard': { params: byId, response: z.undefined() },
  'inbox.address': { response: inboxAddressSchema },
  'inbox.rotateAddress': { response: inboxAddressSchema },
  'notes.updateMatching': { body: notesMatchingChangeSchema, response: notesMatchingResultSchema },
  'merchantRules.list': { response: merchantRuleListSchema },
  'merchantRules.create': { body: merchantRuleCreateSchema, response: merchantRuleSchema },
  'merchantRules.remove': { params: byId, response: z.undefined() },
  'accountingCategories.list': { response: accountingCategoryListSchema },
  'accountingCategories.create': {
    body: accountingCategoryCreateSchema,
    response: accountingCategorySchema,
  },
  'accountingCategories.import': { body: z.string(), response: chartImportResultSchema },
  'accountingCategories.update': {
    params: byId,
    body: accountingCategoryPatchSchema,
    response: accountingCategorySchema,
  },
  // close-policy
  'closePolicy.get': { response: closePolicySchema },
  'closePolicy.update': { body: closePolicyUpdateSchema, response: closePolicySchema },
  // alerts
  'alerts.rules': { response: alertRuleListSchema },
  'alerts.createRule': { body: alertRuleInputSchema, response: alertRuleSchema },
  'alerts.updateRule': { params: byId, body: alertRuleUpdateSchema, response: alertRuleSchema },
  'alerts.deleteRule': { params: byId, query: alertRuleDeleteQuerySchema, response: z.undefined() },
  'alerts.testRule': { params: byId, response: alertTestResultSchema },
  'alerts.inbox': { query: inboxQuerySchema, response: inboxPageSchema },
  'alerts.unreadCount': { response: unreadCountSchema },
  'alerts.markRead': { body: markReadSchema, response: markReadResultSchema },
  'alerts.webhooks': { response: webhookTargetListSchema },
  'alerts.createWebhook': { body: webhookTargetInputSchema, response: webhookTargetCreatedSchema },
  'alerts.deleteWebhook': { params: byId, response: z.undefined() },
  // people
  'people.list': { response: peopleListSchema },
  'people.invite': { body: invitationInputSchema, response: invitationCreatedSchema },
  'people.cancelInvitation': { params: byEmail, response: z.undefined() },
  'people.setRole': { params: byEmail, body: roleChangeSchema, response: personViewSchema },
  'people.disable': { params: byEmail, response: personViewSchema },
  'people.enable': { params: byEmail, response: personViewSchema },
  'people.remove': { params: byEmail, response: z.undefined() },
  'people.sessions': { params: byEmail, response: sessionListSchema },
  'people.endSessions': { params: byEmail, response: z.undefined() },
  'people.endSession': { params: bySession, response: z.undefined() },
  'invitations.lookup': { body: invitationLookupSchema, response: invitationViewSchema },
  'invitations.authenticator': {
    body: invitationLookupSchema,
    response: invitationAuthenticatorSchema,
  },
  'invitations.accept': { body: acceptInvitationSchema, response: invitationAcceptedSchema },
  // overview
  'overview.get': { query: overviewQuerySchema, response: overviewSchema },
  // audit
  'audit.list': { query: auditListQuerySchema, response: auditPageSchema },
  'audit.exportCsv': { query: auditExportQuerySchema },
} as const satisfies { [N in EndpointName]: EndpointSchemas };

export type EndpointSchemasOf<N extends EndpointName> = (typeof endpointSchemas)[N];
