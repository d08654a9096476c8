import type { AccountingCategory } from '@card-console/shared/api/accounting-categories';
import type { AuditRecord } from '@card-console/shared/api/audit';
import { type Card, LARGE_MAXIMUM_CENTS } from '@card-console/shared/api/cards';
import type { MetaResponse } from '@card-console/shared/api/meta';
import type { Notes } from '@card-console/shared/api/notes';
import type { LimitImpact, Overview } from '@card-console/shared/api/overview';
import type {
  PasskeyAssertion,
  PasskeyAttestation,
  PasskeySummary,
  SecondFactorsResponse,
} from '@card-console/shared/api/security';
import type { SessionResponse } from '@card-console/shared/api/session';
import type { SubAccount } from '@card-console/shared/api/sub-accounts';
import type { Transaction } from '@card-console/shared/api/transactions';
import { moneyBuckets } from '@card-console/shared/money-definition';

const HOUR = 3_600_000;

export function financeSession(overrides: Partial<SessionResponse> = {}): SessionResponse {
  return {
    email: 'finance@example.test',
    role: 'finance',
    method: 'password',
    stepUpMethods: [],
    idleExpiresAt: Date.now() + 15 * 60_000,
    absoluteExpiresAt: Date.now() + 12 * HOUR,
    largeMaximumCents: LARGE_MAXIMUM_CENTS,
    ...overrides,
  };
}

export function adminSession(overrides: Partial<SessionResponse> = {}): SessionResponse {
  return financeSession({
    email: 'admin@example.test',
    role: 'admin',
    stepUpUntil: Date.now() + 5 * 60_000,
    stepUpMethods: ['totp'],
    ...overrides,
  });
}

export const demoMeta: MetaResponse = {
  mode: 'demo',
  passwordSignIn: true,
  demoAccounts: [
    { email: 'finance@demo.test', role: 'finance', password: 'demo-password' },
    {
      email: 'admin@demo.test',
      role: 'admin',
      password: 'demo-password',
      totpSecret: 'JBSWY3DPEHPK3PXP',
      otpauthUri: 'otpauth://totp/Card%20Console:admin%40demo.test?secret=JBSWY3DPEHPK3PXP',
    },
  ],
};

export const productionMeta: MetaResponse = { mode: 'production', passwordSignIn: true };

/** A company that signs in through its identity provider, with or without passwords too. */
export function ssoMeta(overrides: Partial<MetaResponse> = {}): MetaResponse {
  return { mode: 'production', passwordSignIn: false, sso: { label: 'Acme Okta' }, ...overrides };
}

/** What `startAuthentication` resolves to (the shape the shared schema checks). */
export function passkeyAssertion(id = 'cred-1'): PasskeyAssertion {
  return {
    id,
    rawId: id,
    type: 'public-key',
    response: { clientDataJSON: 'Y2xpZW50', authenticatorData: 'YXV0aA', signature: 'c2ln' },
    clientExtensionResults: {},
    authenticatorAttachment: 'platform',
  };
}

/** What `startRegistration` resolves to. */
export function passkeyAttestation(id = 'cred-new'): PasskeyAttestation {
  return {
    id,
    rawId: id,
    type: 'public-key',
    response: { clientDataJSON: 'Y2xpZW50', attestationObject: 'YXR0', transports: ['internal'] },
    clientExtensionResults: {},
    authenticatorAttachment: 'platform',
  };
}

export function passkeySummary(overrides: Partial<PasskeySummary> = {}): PasskeySummary {
  return {
    id: 'cred-1',
    name: 'MacBook Touch ID',
    createdAt: Date.parse('2026-02-01T10:00:00.000Z'),
    lastUsedAt: Date.parse('2026-03-01T08:30:00.000Z'),
    ...overrides,
  };
}

export function secondFactors(
  overrides: Partial<SecondFactorsResponse> = {},
): SecondFactorsResponse {
  return {
    passkeys: [passkeySummary()],
    totp: { available: true, enabled: true },
    ...overrides,
  };
}

export const subAccounts: SubAccount[] = [
  { id: 'sa_ops', name: 'Operations', balanceCents: 1_234_567, spendCents: 250_000 },
  { id: 'sa_mkt', name: 'Marketing', balanceCents: 500_000, spendCents: 99_999 },
];

export function card(overrides: Partial<Card> = {}): Card {
  return {
    id: 'card_1',
    last4: '4242',
    name: 'Travel card',
    expiryMonth: '08',
    expiryYear: '2029',
    status: 'active',
    createdAt: '2026-01-15T10:00:00.000Z',
    utilizationLimit: {
      preset: 'monthly',
      limitCents: 500_000,
      timezone: 'America/New_York',
      startDate: '2026-01-01',
    },
    transactionSizeLimit: { minimumCents: 100, maximumCents: 50_000 },
    ...overrides,
  };
}

export function transaction(overrides: Partial<Transaction> = {}): Transaction {
  return {
    id: 'tx_1',
    date: '2026-03-05T15:30:00.000Z',
    description: 'Coffee beans',
    amountCents: -1_250,
    status: 'settled',
    referenceNumber: 'REF-0001',
    authorizedAt: '2026-03-04T12:00:00.000Z',
    createdAt: '2026-03-05T15:30:00.000Z',
    merchant: {
      description: 'BLUE BOTTLE SF',
      categoryCode: '5814',
      categoryName: 'Fast Food Restaurants',
    },
    cardId: 'card_1',
    // As the BFF joins it from its card directory.
    card: { name: 'Travel card', last4: '4242' },
    originalCurrency: { code: 'EUR', amountCents: 1_150, conversionRate: 1.087 },
    ...overrides,
  };
}

export function auditRecord(overrides: Partial<AuditRecord> = {}): AuditRecord {
  return {
    id: 'au_1',
    at: '2026-03-06T09:00:00.000Z',
    actor: 'admin@example.test',
    role: 'admin',
    action: 'card.update',
    outcome: 'success',
    cardId: 'card_1',
    last4: '4242',
    before: { maximumCents: 50_000 },
    after: { maximumCents: 25_000 },
    requestId: 'req-au-1',
    ...overrides,
  };
}

/** A limit impact preview: 90 days ending 2026-03-31, no charges, limits unchanged. */
export function limitImpact(overrides: Partial<LimitImpact> = {}): LimitImpact {
  const none = { count: 0, sumCents: 0 };
  const limits = { minimumCents: 100, maximumCents: 50_000 };
  return {
    from: Date.parse('2026-01-01T12:00:00.000Z'),
    to: Date.parse('2026-03-31T12:00:00.000Z'),
    examined: 0,
    wentThrough: none,
    sizeDeclined: none,
    current: { limits, wouldRefuse: none, wouldAllow: none },
    proposed: { limits, wouldRefuse: none, wouldAllow: none },
    refusedOnlyByProposed: none,
    allowedOnlyByProposed: none,
    effect: 'same',
    ...overrides,
  };
}

/** The landing screen's answer for a quiet period: complete, nothing spent. */
export function quietOverview(overrides: Partial<Overview> = {}): Overview {
  const figure = { count: 0, cents: 0, pendingCount: 0, pendingCents: 0 };
  const money = Object.fromEntries(
    moneyBuckets.map((b) => [b, { ...figure }]),
  ) as Overview['totals']['money'];
  const none = { cardSpendCents: 0, cardSpendPendingCents: 0, money, count: 0 };
  return {
    status: 'complete',
    period: { from: '2026-03-01', to: '2026-03-30', tz: 'UTC' },
    totals: none,
    previousTotals: none,
    granularity: 'day',
    series: [],
    categories: [],
    merchants: [],
    cards: [],
    declines: { count: 0, rate: 0, reasons: [] },
    ...overrides,
  };
}

/** A transaction's notes: none yet (version 0) unless overridden. */
export function transactionNotes(overrides: Partial<Notes> = {}): Notes {
  return {
    transactionId: 'tx_1',
    memo: '',
    categoryId: null,
    tags: [],
    review: { state: 'unreviewed' },
    version: 0,
    ...overrides,
  };
}

/** A small chart of accounts, by code, one category archived. */
export const accountingCategories: AccountingCategory[] = [
  { id: 'cat_meals', code: '6100', name: 'Meals', archived: false },
  { id: 'cat_travel', code: '6200', name: 'Travel', archived: false },
  { id: 'cat_old', code: '6900', name: 'Old software', archived: true },
];
