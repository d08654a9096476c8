// What the receipt inbox's tests of the whole app share (inbox-faults, inbox-match-timing,
// inbox-mail): the card charge a receipt is of and a card service holding it, the app's
// options with a stand-in reader and an audit trail a test can hold or refuse a record on, the
// receipt mail listener's settings, the finance person put in People, and an SMTP client.
import type { AuditRecord } from '@card-console/shared/api/audit';
import type { InboxRead } from '@card-console/shared/api/receipt-inbox';
import nodemailer from 'nodemailer';
import type { NewAuditRecord } from '../platform/audit/audit-store';
import { hashPassword } from '../platform/users/password-hash';
import type { ContractWorld } from './contract-answers';
import { type ContractCardService, startContractCardService } from './contract-card-service';
import type { ManualClock, TestApp, TestAppOptions } from './harness';

export const NOW = Date.UTC(2026, 10, 20, 15);
/** The forwarding addresses' domain. */
export const DOMAIN = 'receipts.example.test';
/** A card charge at Harbor Cafe an hour before `NOW`, on card_1. */
export const CHARGE = {
  id: 'harbor-1',
  date: new Date(NOW - 3_600_000).toISOString(),
  description: 'Harbor Cafe',
  amountCents: -12_88,
  status: 'settled',
  referenceNumber: 'ref harbor-1',
  cardId: 'card_1',
  merchantData: { description: 'HARBOR CAFE', categoryCode: '5812' },
};

/**
 * A contract card service (its API key `apiKey`) serving `transactions` under `subAccounts`, on
 * the one card, card_1.
 */
export async function startInboxCardService(
  apiKey: string,
  subAccounts: ContractWorld['subAccounts'],
  transactions: ContractWorld['transactions'],
): Promise<ContractCardService> {
  const service = await startContractCardService(apiKey);
  service.setWorld({
    subAccounts,
    cards: [{ id: 'card_1', last4: '4242', name: 'Travel', status: 'active' }],
    transactions,
    pageSize: { subAccounts: 5, cards: 5, transactions: 4 },
    cursors: [],
    withCount: false,
  });
  return service;
}

/** What the stand-in reader finds on a file. */
export type Reading = Pick<InboxRead, 'totalCents' | 'date' | 'merchant'>;

/**
 * The app's options against `service`, on `clock`: a stand-in reader that finds `reading()` on
 * every file, and a trail that hands each record to `beforeRecord` before writing it (a throw
 * refuses the record; a promise holds it until it settles).
 */
export function inboxAppOptions(
  service: ContractCardService,
  clock: ManualClock,
  reading: () => Reading,
  beforeRecord: (record: NewAuditRecord) => Promise<void> | void,
): TestAppOptions {
  return {
    upstream: { url: service.url, apiKey: service.apiKey },
    clock,
    receiptReader: { read: async () => ({ ok: true, fields: reading() }) },
    audit: (trail) => ({
      append: async (record: NewAuditRecord): Promise<AuditRecord> => {
        const held = beforeRecord(record);
        if (held) await held;
        return trail.append(record);
      },
      list: (options) => trail.list(options),
    }),
  };
}

/** The receipt mail listener's settings: any free loopback port, `DOMAIN`'s addresses. */
export function receiptMailListener() {
  return {
    host: '127.0.0.1',
    port: 0,
    domain: DOMAIN,
    maxMessageBytes: 25 * 1024 * 1024,
    messagesPerHourPerAddress: 60,
    connectionsPerMinutePerIp: 30,
  };
}

/** Puts `t`'s finance person in People, as on a server (the harness signs in from a file). */
export async function putFinanceInPeople(t: TestApp): Promise<void> {
  await (await t.stores.people()).importUsers([
    {
      email: t.credentials.finance.email,
      role: 'finance',
      passwordHash: await hashPassword('finance-password', { N: 1024, r: 8, p: 1 }),
    },
  ]);
}

/** An SMTP client of `t`'s receipt mail listener, as a sending server on loopback (no TLS). */
export function receiptMailClient(t: TestApp) {
  return nodemailer.createTransport({
    host: '127.0.0.1',
    port: t.receiptMailPort,
    secure: false,
    ignoreTLS: true,
  });
}
