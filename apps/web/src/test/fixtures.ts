import type { AuditRecord } from '@card-console/shared/api/audit';
import type { Card } from '@card-console/shared/api/cards';
import type { MetaResponse } from '@card-console/shared/api/meta';
import type { SessionResponse } from '@card-console/shared/api/session';
import type { SubAccount } from '@card-console/shared/api/sub-accounts';
import type { Transaction } from '@card-console/shared/api/transactions';

const HOUR = 3_600_000;

export function financeSession(overrides: Partial<SessionResponse> = {}): SessionResponse {
  return {
    email: 'finance@example.test',
    role: 'finance',
    idleExpiresAt: Date.now() + 15 * 60_000,
    absoluteExpiresAt: Date.now() + 12 * HOUR,
    ...overrides,
  };
}

export function adminSession(overrides: Partial<SessionResponse> = {}): SessionResponse {
  return financeSession({
    email: 'admin@example.test',
    role: 'admin',
    stepUpUntil: Date.now() + 5 * 60_000,
    ...overrides,
  });
}

export const demoMeta: MetaResponse = {
  mode: 'demo',
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

export const productionMeta: MetaResponse = { mode: 'production' };

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
    merchant: { description: 'BLUE BOTTLE SF', categoryCode: '5814' },
    cardId: 'card_1',
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
