// A receipt matched for certain goes from `reading` to `attached` in one step, with what was
// read: a list asked for meanwhile never says `suggested`. (The SPA asks for the inbox again
// only while something is being read: a list that said suggested then was the last it asked for,
// offering to confirm a receipt already attached. The browser test saw it on a loaded machine.)
// On PostgreSQL, which answers a list while another transaction is open: the attach is held
// inside its transaction, at its audit record, while the person's inbox is asked for over HTTP.
import { randomBytes } from 'node:crypto';
import type { AuditRecord } from '@card-console/shared/api/audit';
import { inboxItemSchema, inboxListSchema } from '@card-console/shared/api/receipt-inbox';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { NewAuditRecord } from '../../platform/audit/audit-store';
import { postgresEngine } from '../../platform/sql/sql-engine';
import { openStores } from '../../stores';
import { silentLogger } from '../../test/audit-cluster';
import {
  type ContractCardService,
  startContractCardService,
} from '../../test/contract-card-service';
import { type PostgresEngine, startPostgres } from '../../test/engines/postgres';
import { ManualClock, startTestApp, type TestApp, type TestSession } from '../../test/harness';
import { pdfReceipt } from '../../test/receipt-files';
import { settledIndexList } from '../../test/settled-index';

const NOW = Date.UTC(2026, 10, 20, 15);
/** The one card charge: the receipt's own, and no other of its size or shop. */
const CHARGE = {
  id: 'harbor-1',
  date: new Date(NOW - 3_600_000).toISOString(),
  description: 'Harbor Cafe',
  amountCents: -12_88,
  status: 'settled',
  referenceNumber: 'ref harbor-1',
  cardId: 'card_1',
  merchantData: { description: 'HARBOR CAFE', categoryCode: '5812' },
};
/** What the reader finds on the receipt: the charge's total, day and shop. */
const READ = { totalCents: 12_88, date: CHARGE.date.slice(0, 10), merchant: 'Harbor Cafe' };

let service: ContractCardService;
let postgres: PostgresEngine;
let t: TestApp;
let finance: TestSession;
/** Resolved when the attach's record is asked for, inside its transaction. */
let reached: () => void;
const attaching = new Promise<void>((resolve) => {
  reached = resolve;
});
/** Lets the held attach go on. */
let release: () => void;
const released = new Promise<void>((resolve) => {
  release = resolve;
});

beforeAll(async () => {
  [service, postgres] = await Promise.all([
    startContractCardService('certain-match-key'),
    startPostgres(),
  ]);
  service.setWorld({
    subAccounts: [{ id: 'sub_1', name: 'Operating' }],
    cards: [{ id: 'card_1', last4: '4242', name: 'Travel', status: 'active' }],
    transactions: [{ subAccountId: 'sub_1', item: CHARGE }],
    pageSize: { subAccounts: 5, cards: 5, transactions: 4 },
    cursors: [],
    withCount: false,
  });
  const databaseUrl = await postgres.createDatabase('certain_match');
  t = await startTestApp({
    upstream: { url: service.url, apiKey: service.apiKey },
    clock: new ManualClock(NOW),
    env: { sessionSecret: randomBytes(32).toString('hex') },
    stores: openStores({
      open: async () => postgresEngine(new pg.Pool({ connectionString: databaseUrl, max: 4 })),
      logger: silentLogger,
    }),
    receiptReader: { read: async () => ({ ok: true, fields: READ }) },
    audit: (trail) => ({
      append: async (record: NewAuditRecord): Promise<AuditRecord> => {
        if (record.action === 'inbox.attach' && record.outcome === 'success') {
          reached();
          await released;
        }
        return trail.append(record);
      },
      list: (options) => trail.list(options),
    }),
  });
  finance = await t.signIn('finance');
  // The index synced: the charge is a candidate.
  expect((await settledIndexList(t, finance)).items.map((row) => row.id)).toEqual([CHARGE.id]);
}, 120_000);
afterAll(async () => {
  release?.();
  await t?.close();
  await service?.close();
  await postgres?.destroy();
});

const inbox = async () => {
  const res = await t.request.get('/api/receipt-inbox').set(finance.headers());
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return inboxListSchema.parse(res.body);
};

it('is never listed as suggested on its way from reading to attached, and keeps what was read', async () => {
  const res = await t.request
    .post('/api/receipt-inbox')
    .set(
      finance.headers({ 'Content-Type': 'application/octet-stream', 'X-File-Name': 'harbor.pdf' }),
    )
    .send(pdfReceipt());
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const { id } = inboxItemSchema.parse(res.body);

  // Matched for certain, the attach is written and waits at its record, not yet committed.
  await attaching;
  const meanwhile = await inbox();
  expect(meanwhile.items.map((item) => [item.id, item.status])).toEqual([[id, 'reading']]);
  expect(meanwhile.counts.reading).toBe(1);

  release();
  let after = await inbox();
  for (let tries = 0; tries < 100 && after.counts.reading > 0; tries++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    after = await inbox();
  }
  expect(after.items).toHaveLength(1);
  expect(after.items[0]).toMatchObject({
    id,
    status: 'attached',
    read: READ,
    attached: { transactionId: CHARGE.id, automatic: true },
  });
  const receipts = await t.request
    .get(`/api/transactions/${CHARGE.id}/receipts`)
    .set(finance.headers());
  expect(receipts.body.items.map((r: { fileName: string }) => r.fileName)).toEqual(['harbor.pdf']);
}, 60_000);
