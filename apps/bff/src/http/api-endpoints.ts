import type { Endpoint, Feature } from '../core/endpoint';
import { accountingCategoriesFeature } from '../features/accounting-categories/accounting-categories-endpoints';
import { alertsFeature } from '../features/alerts/alerts-endpoints';
import { auditFeature } from '../features/audit/audit-endpoints';
import { cardsFeature } from '../features/cards/cards-endpoints';
import { closePolicyFeature } from '../features/close-policy/close-policy-endpoints';
import { metaFeature } from '../features/meta/meta-endpoints';
import { notesFeature } from '../features/notes/notes-endpoints';
import { overviewFeature } from '../features/overview/overview-endpoints';
import { peopleFeature } from '../features/people/people-endpoints';
import { receiptInboxFeature } from '../features/receipt-inbox/inbox-endpoints';
import { securityFeature } from '../features/security/security-endpoints';
import { securityPolicyFeature } from '../features/security-policy/security-policy-endpoints';
import { sessionFeature } from '../features/session/session-endpoints';
import { ssoFeature } from '../features/sso/sso-endpoints';
import { subAccountsFeature } from '../features/sub-accounts/sub-accounts-endpoints';
import { transactionIndexFeature } from '../features/transaction-index/index-endpoints';
import { transactionsFeature } from '../features/transactions/transactions-endpoints';

/** Every feature that answers under /api. A new feature's endpoints are added here, once. */
export const apiFeatures = [
  metaFeature,
  sessionFeature,
  ssoFeature,
  securityFeature,
  securityPolicyFeature,
  subAccountsFeature,
  cardsFeature,
  transactionsFeature,
  transactionIndexFeature,
  notesFeature,
  receiptInboxFeature,
  accountingCategoriesFeature,
  closePolicyFeature,
  alertsFeature,
  peopleFeature,
  overviewFeature,
  auditFeature,
] as const;

/** Every endpoint the API has, as declared. */
export const apiEndpoints: readonly Endpoint[] = apiFeatures.flatMap(
  (feature): readonly Endpoint[] => feature.endpoints,
);

type DepsOf<F> = F extends Feature<infer D, unknown> ? D : never;
type Intersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void
  ? I
  : never;

/** What the API's features are built from: every feature's dependencies together. */
export type ApiDeps = Intersection<DepsOf<(typeof apiFeatures)[number]>>;
