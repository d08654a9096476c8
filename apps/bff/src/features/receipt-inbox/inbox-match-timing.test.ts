// What a person's inbox says is what came of the matching, never a state on its way. The SPA
// asks for the inbox again only while something is being read, so the answer after the last read
// is what the screen keeps showing.
// - A receipt matched for certain goes from `reading` to `attached` in one step, with what was
//   read: a list asked for meanwhile never says `suggested` (the browser test saw such a list
//   kept, offering to confirm a receipt already attached). On PostgreSQL, which answers a list
//   while another transaction is open: the attach is held inside its transaction, at its audit
//   record, while the inbox is asked for over HTTP of the other replica.
// - A waiting receipt is matched again when its person looks, at most every 10 minutes, before
//   that look's answer: its transaction, reopened meanwhile, has it attached in that answer.
//   Another person's look leaves it alone; two looks at once, one on each of two replicas of one
//   PostgreSQL database, match it once.
import { randomBytes } from 'node:crypto';
import {
  type InboxItem,
  type InboxRead,
  inboxItemSchema,
  inboxListSchema,
} from '@card-console/shared/api/receipt-inbox';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ContractCardService } from '../../test/contract-card-service';
import { type PostgresEngine, startPostgres } from '../../test/engines/postgres';
import {
  ManualClock,
  startTestApp,
  type TestApp,
  type TestAppOptions,
  type TestSession,
} from '../../test/harness';
import { pdfReceipt } from '../../test/receipt-files';
import { CHARGE, inboxAppOptions, NOW, startInboxCardService } from '../../test/receipt-inbox-app';
import { replicaStores } from '../../test/replica-stores';
import { settledIndexList } from '../../test/settled-index';

// The receipt's charge is CHARGE (inbox-test-support), and no other here is of its size or shop.
/** What the reader finds on the receipt: the charge's total, day and shop. */
const READ = { totalCents: 12_88, date: CHARGE.date.slice(0, 10), merchant: 'Harbor Cafe' };
/** A second charge, reviewed when its receipt arrives, then reopened. */
const LATER = {
  ...CHARGE,
  id: 'pine-2',
  description: 'Pine Books',
  amountCents: -47_15,
  referenceNumber: 'ref pine-2',
  merchantData: { description: 'PINE BOOKS', categoryCode: '5942' },
};
const LATER_READ = { totalCents: 47_15, date: READ.date, merchant: 'Pine Books' };
/** What the reader finds on the next file. */
let reading = READ;
const clock = new ManualClock(NOW);

let service: ContractCardService;
let postgres: PostgresEngine;
/** Two replicas on one PostgreSQL database: sessions, stores and jobs shared. */
let t: TestApp;
let other: TestApp;
let finance: TestSession;
let admin: TestSession;
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
    startInboxCardService(
      'certain-match-key',
      [{ id: 'sub_1', name: 'Operating' }],
      [
        { subAccountId: 'sub_1', item: CHARGE },
        { subAccountId: 'sub_1', item: LATER },
      ],
    ),
    startPostgres(),
  ]);
  const databaseUrl = await postgres.createDatabase('certain_match');
  const env = { sessionSecret: randomBytes(32).toString('hex') };
  const replica = (): TestAppOptions => ({
    ...inboxAppOptions(
      service,
      clock,
      () => reading,
      (record) => {
        if (record.action === 'inbox.attach' && record.outcome === 'success') {
          reached();
          return released;
        }
      },
    ),
    env,
    shared: { databaseUrl },
    stores: replicaStores(databaseUrl),
  });
  t = await startTestApp(replica());
  other = await startTestApp(replica());
  [finance, admin] = [await t.signIn('finance'), await t.signIn('admin')];
  // The index synced: the charges are candidates.
  expect((await settledIndexList(t, finance)).items.map((row) => row.id).sort()).toEqual([
    CHARGE.id,
    LATER.id,
  ]);
}, 120_000);
afterAll(async () => {
  release?.();
  await other?.close();
  await t?.close();
  await service?.close();
  await postgres?.destroy();
});

const inbox = async (session = finance, app = t) => {
  const res = await app.request.get('/api/receipt-inbox').set(session.headers());
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return inboxListSchema.parse(res.body);
};

/** The person's inbox once nothing in it is being read. */
const readInbox = async () => {
  let list = await inbox();
  for (let tries = 0; tries < 100 && list.counts.reading > 0; tries++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    list = await inbox();
  }
  return list;
};

async function upload(name: string) {
  const res = await t.request
    .post('/api/receipt-inbox')
    .set(finance.headers({ 'Content-Type': 'application/octet-stream', 'X-File-Name': name }))
    .send(pdfReceipt());
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return inboxItemSchema.parse(res.body).id;
}

/** The item attached for certain to `to`, with what was read, and its file the charge's receipt. */
async function expectAttached(
  item: InboxItem | undefined,
  want: { id: string; read: InboxRead; to: string; file: string },
) {
  expect(item).toMatchObject({
    id: want.id,
    status: 'attached',
    read: want.read,
    attached: { transactionId: want.to, automatic: true },
  });
  const receipts = await t.request
    .get(`/api/transactions/${want.to}/receipts`)
    .set(finance.headers());
  expect(receipts.body.items.map((r: { fileName: string }) => r.fileName)).toEqual([want.file]);
}

/** Marks the charge reviewed or reopens it; its notes' version after. */
async function review(id: string, version: number, reviewed: boolean): Promise<number> {
  const res = await t.request
    .patch(`/api/transactions/${id}/notes`)
    .set(finance.headers())
    .send({ version, reviewed });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.version;
}

it('is never listed as suggested on its way from reading to attached, and keeps what was read', async () => {
  const id = await upload('harbor.pdf');

  // Matched for certain, the attach is written and waits at its record, not yet committed; the
  // inbox is asked for on the other replica.
  await attaching;
  const meanwhile = await inbox(finance, other);
  expect(meanwhile.items.map((item) => [item.id, item.status])).toEqual([[id, 'reading']]);
  expect(meanwhile.counts.reading).toBe(1);

  release();
  const after = await readInbox();
  expect(after.items).toHaveLength(1);
  await expectAttached(after.items[0], { id, read: READ, to: CHARGE.id, file: 'harbor.pdf' });
}, 60_000);

it('is matched again when its person looks, before the answer, at most every 10 minutes', async () => {
  // Reviewed, the charge is no candidate (its receipts are locked): the receipt waits.
  const version = await review(LATER.id, 0, true);
  reading = LATER_READ;
  const id = await upload('pine.pdf');
  const waiting = (await readInbox()).items.find((item) => item.id === id);
  expect(waiting).toMatchObject({ status: 'waiting', read: LATER_READ, suggestions: [] });

  // Reopened, it is a candidate. Looked at within 10 minutes, the receipt still waits.
  await review(LATER.id, version, false);
  clock.advance(9 * 60_000);
  expect((await inbox()).items.find((item) => item.id === id)?.status).toBe('waiting');
  // Past them, another person's look leaves it be.
  clock.advance(2 * 60_000);
  await inbox(admin);
  const store = await t.stores.receiptInbox();
  expect((await store.item(t.credentials.finance.email, id))?.status).toBe('waiting');

  // Its person's look matches it again, and its answer has it attached. Two looks at once (two
  // tabs, one on each replica) match it once: one takes it, the other finds it taken.
  const looks = await Promise.all([inbox(), inbox(finance, other)]);
  const looked = looks.map((list) => list.items.find((item) => item.id === id));
  const taker = looked.find((item) => item?.status === 'attached');
  await expectAttached(taker, { id, read: LATER_READ, to: LATER.id, file: 'pine.pdf' });
  // Each replica writes its own trail here.
  const trails = await Promise.all([t, other].map((app) => app.audit.list({ limit: 100 })));
  const records = trails
    .flatMap((trail) => trail.items)
    .filter((record) => record.action === 'inbox.attach' && record.target === LATER.id);
  expect(records.map((record) => record.outcome)).toEqual(['success']);
}, 60_000);
