// What the receipt inbox does when something goes wrong, over HTTP and SMTP with a stand-in
// reader (decision 0118):
// - a read that fails leaves nothing `reading` for good: a total no receipt has is no total; a
//   match that fails after the reading saves what was read, `waiting`; a job that failed outright
//   (the database down even for that save) is asked for again by its person's next look;
// - a mailed message answered "try later" after some attachments were kept, sent again with the
//   same Message-ID, puts each attachment in once;
// - an attach by hand names the sub account the index holds the transaction under, never the
//   browser's word (the card service's transaction names none);
// - a disabled or removed person's forwarding address takes no mail, as an unknown one.
import { randomBytes } from 'node:crypto';
import { apiErrorBodySchema } from '@card-console/shared/api/error';
import {
  type InboxItem,
  inboxItemSchema,
  inboxListSchema,
} from '@card-console/shared/api/receipt-inbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ContractCardService } from '../../test/contract-card-service';
import { ManualClock, startTestApp, type TestApp, type TestSession } from '../../test/harness';
import { pdfReceipt } from '../../test/receipt-files';
import {
  CHARGE,
  inboxAppOptions,
  NOW,
  putFinanceInPeople,
  type Reading,
  receiptMailClient,
  receiptMailListener,
  startInboxCardService,
} from '../../test/receipt-inbox-app';
import { settledIndexList } from '../../test/settled-index';
import { testPan } from '../../test/test-pan';
import type { ReceiptInboxStore } from './inbox-store';

/** What the stand-in reader finds on the next file: by default a total nothing in the index has. */
const NOTHING_LIKE_IT: Reading = {
  totalCents: 99_17,
  merchant: 'Nowhere Diner',
};
let reading = NOTHING_LIKE_IT;
/** `inbox.receive` successes the trail takes before it refuses one (once); none when undefined. */
let receivesBeforeRefusal: number | undefined;
const clock = new ManualClock(NOW);

let service: ContractCardService;
let t: TestApp;
let finance: TestSession;
let store: ReceiptInboxStore;

/** A PDF of its own bytes (the stand-in reader reads nothing off it). */
const pdf = (tag: string) =>
  Buffer.from(pdfReceipt().toString('latin1').replace('%%EOF', `% ${tag}\n%%EOF`), 'latin1');

beforeAll(async () => {
  service = await startInboxCardService(
    'inbox-faults-key',
    [
      { id: 'sub_1', name: 'Operating' },
      { id: 'sub_2', name: 'Payroll' },
    ],
    [{ subAccountId: 'sub_1', item: CHARGE }],
  );
  t = await startTestApp({
    ...inboxAppOptions(
      service,
      clock,
      () => reading,
      (record) => {
        if (
          receivesBeforeRefusal !== undefined &&
          record.action === 'inbox.receive' &&
          record.outcome === 'success' &&
          receivesBeforeRefusal-- === 0
        ) {
          receivesBeforeRefusal = undefined;
          throw new Error('the trail is briefly down');
        }
      },
    ),
    env: {
      sessionSecret: randomBytes(32).toString('hex'),
      receiptMail: receiptMailListener(),
    },
  });
  finance = await t.signIn('finance');
  // The people who sign in are in People, as on a server.
  await putFinanceInPeople(t);
  store = await t.stores.receiptInbox();
  // The charge in the index, as a person picking a transaction by hand finds it.
  expect((await settledIndexList(t, finance)).items.map((row) => row.id)).toContain(CHARGE.id);
}, 120_000);
afterAll(async () => {
  await t?.close();
  await service?.close();
});

async function inbox() {
  const res = await t.request.get('/api/receipt-inbox').set(finance.headers());
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return inboxListSchema.parse(res.body);
}

async function upload(bytes: Buffer, name: string): Promise<InboxItem> {
  const res = await t.request
    .post('/api/receipt-inbox')
    .set(finance.headers({ 'Content-Type': 'application/octet-stream', 'X-File-Name': name }))
    .send(bytes);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return inboxItemSchema.parse(res.body);
}

/** The item once it is no longer `reading`, or as it is after `ms` of asking. */
async function settled(id: string, ms = 5_000): Promise<InboxItem | undefined> {
  let item: InboxItem | undefined;
  for (const end = Date.now() + ms; Date.now() < end; ) {
    item = (await inbox()).items.find((i) => i.id === id);
    if (item && item.status !== 'reading') return item;
    await new Promise((r) => setTimeout(r, 100));
  }
  return item;
}

/** Waits for the item's `receipt-inbox` job to end (a failure leaves the item as it is). */
async function jobEnded(id: string): Promise<string> {
  for (let tries = 0; tries < 100; tries++) {
    const [row] = await t.stores.sql.query<{ state: string }>(
      `SELECT state FROM background_job WHERE kind = 'receipt-inbox' AND key = $1`,
      [id],
    );
    if (row && (row.state === 'failed' || row.state === 'succeeded')) return row.state;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`the read of ${id} never ended`);
}

describe('a read that fails', () => {
  it('a total past any charge ("TOTAL $100000000000000000.00") is no total: the item waits', async () => {
    reading = { totalCents: 10_000_000_000_000_000_000, merchant: 'Corner Market' };
    try {
      const { id } = await upload(pdf('huge'), 'huge.pdf');
      const item = await settled(id);
      expect(item?.status).toBe('waiting');
      expect(item?.read).toEqual({ merchant: 'Corner Market' });
    } finally {
      reading = NOTHING_LIKE_IT;
    }
  });

  it('a match that fails (the index briefly down) keeps what was read, waiting to be matched again', async () => {
    const candidates = store.candidates;
    store.candidates = async () => {
      throw new Error('the database is briefly down');
    };
    try {
      const { id } = await upload(pdf('match fails'), 'match-fails.pdf');
      const item = await settled(id);
      expect(item?.status).toBe('waiting');
      expect(item?.read?.totalCents).toBe(NOTHING_LIKE_IT.totalCents);
    } finally {
      store.candidates = candidates;
    }
  });

  it('a job that failed outright (nothing could be saved) is read again at its person’s next look', async () => {
    const [candidates, saveRead] = [store.candidates, store.saveRead];
    const down = async () => {
      throw new Error('the database is down');
    };
    store.candidates = down;
    store.saveRead = down;
    let id: string;
    try {
      ({ id } = await upload(pdf('job fails'), 'job-fails.pdf'));
      expect(await jobEnded(id)).toBe('failed');
      expect((await inbox()).items.find((i) => i.id === id)?.status).toBe('reading');
    } finally {
      store.candidates = candidates;
      store.saveRead = saveRead;
    }
    // Within a minute of its arrival it may still be on its way to a reader: left alone.
    await new Promise((r) => setTimeout(r, 500));
    expect((await inbox()).items.find((i) => i.id === id)?.status).toBe('reading');
    // The database back, a look after that asks for it again, and it is read.
    clock.advance(2 * 60_000);
    const item = await settled(id);
    expect(item?.status).toBe('waiting');
    expect(item?.read?.totalCents).toBe(NOTHING_LIKE_IT.totalCents);
  });
});

describe('an attach by hand', () => {
  it('to a sub account that does not hold the transaction is refused with a clear 404, nothing attached or recorded', async () => {
    const { id } = await upload(pdf('by hand'), 'by-hand.pdf');
    await settled(id);
    for (const subAccountId of ['sub_DOES_NOT_EXIST', 'sub_2']) {
      const res = await t.request
        .post(`/api/receipt-inbox/${id}/attach`)
        .set(finance.headers())
        .send({ subAccountId, transactionId: CHARGE.id });
      expect(res.status, JSON.stringify(res.body)).toBe(404);
      const problem = apiErrorBodySchema.parse(res.body);
      expect(problem.code).toBe('not_found');
      expect(problem.detail).toMatch(/no such transaction in that sub account/);
    }
    const records = (await t.audit.list({ limit: 200 })).items.filter(
      (r) => r.action === 'inbox.attach' && r.target === CHARGE.id,
    );
    expect(records).toEqual([]);
    expect((await inbox()).items.find((i) => i.id === id)?.status).not.toBe('attached');
    // Under its own sub account it is attached, and recorded there.
    const res = await t.request
      .post(`/api/receipt-inbox/${id}/attach`)
      .set(finance.headers())
      .send({ subAccountId: 'sub_1', transactionId: CHARGE.id });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(inboxItemSchema.parse(res.body).attached?.subAccountId).toBe('sub_1');
    const [record] = (await t.audit.list({ limit: 200 })).items.filter(
      (r) => r.action === 'inbox.attach' && r.target === CHARGE.id,
    );
    expect(record).toMatchObject({ outcome: 'success', subAccountId: 'sub_1' });
  });
});

describe('mail', () => {
  const address = async () =>
    (await t.request.get('/api/receipt-inbox/address').set(finance.headers())).body
      .address as string;
  const sendMail = async (
    to: string,
    messageId: string,
    files: { filename: string; content: Buffer }[],
  ) => {
    const transport = receiptMailClient(t);
    try {
      await transport.sendMail({
        from: 'someone@example.test',
        to,
        subject: 'receipts',
        text: 'attached',
        messageId,
        attachments: files,
      });
      return 250;
    } catch (error) {
      return (error as { responseCode?: number }).responseCode ?? -1;
    } finally {
      transport.close();
    }
  };
  const names = async (prefix: string) =>
    (await inbox()).items
      .map((i) => i.fileName)
      .filter((n) => n.startsWith(prefix))
      .sort();

  it('answered "try later" after one attachment was kept, and sent again, puts each in once', async () => {
    const to = await address();
    const files = [
      { filename: 'resent-a.pdf', content: pdf('resent a') },
      { filename: 'resent-b.pdf', content: pdf('resent b') },
    ];
    // The first attachment kept, the second's record refused: not kept, and the server is told
    // to try again later.
    receivesBeforeRefusal = 1;
    expect(await sendMail(to, '<resent-1@mail.example.test>', files)).toBe(451);
    expect(await names('resent-')).toEqual(['resent-a.pdf']);
    // The sending server's next try: the same message, whole.
    expect(await sendMail(to, '<resent-1@mail.example.test>', files)).toBe(250);
    expect(await names('resent-')).toEqual(['resent-a.pdf', 'resent-b.pdf']);
    const records = (await t.audit.list({ limit: 200 })).items.filter(
      (r) =>
        r.action === 'inbox.receive' &&
        r.outcome === 'success' &&
        r.requestId === 'mail:<resent-1@mail.example.test>',
    );
    expect(records).toHaveLength(2);
    // The same receipt forwarded again in a message of its own is kept again.
    expect(await sendMail(to, '<resent-2@mail.example.test>', files.slice(0, 1))).toBe(250);
    expect(await names('resent-')).toEqual(['resent-a.pdf', 'resent-a.pdf', 'resent-b.pdf']);
  });

  it('a Message-ID holding what reads as a card number is kept, its record naming it masked', async () => {
    const to = await address();
    // As a mail library writes ids (time, a counter, host): here the counter passes the Luhn check.
    const run = testPan(4_242);
    const messageId = `<1733571234567.${run}.JavaMail.mailer@mx.example.test>`;
    expect(
      await sendMail(to, messageId, [{ filename: 'numbered-id.pdf', content: pdf('numbered') }]),
    ).toBe(250);
    expect(await names('numbered-id')).toEqual(['numbered-id.pdf']);
    const [record] = (await t.audit.list({ limit: 200 })).items.filter(
      (r) => r.action === 'inbox.receive' && r.requestId?.includes('JavaMail.mailer'),
    );
    expect(record?.outcome).toBe('success');
    // Its digits, time and counter joined by a dot, read as one run too long to be an id.
    expect(record?.requestId).toBe(
      `mail:<[${13 + run.length} digits].JavaMail.mailer@mx.example.test>`,
    );
  });

  it('to a disabled or removed person’s address is refused as to an unknown one, keeping nothing', async () => {
    const to = await address();
    const people = await t.stores.people();
    const email = t.credentials.finance.email;
    const count = async () => (await names('departed-')).length;
    const send = (tag: string) =>
      sendMail(to, `<departed-${tag}@mail.example.test>`, [
        { filename: `departed-${tag}.pdf`, content: pdf(`departed ${tag}`) },
      ]);
    expect(await send('enabled')).toBe(250);
    expect(await count()).toBe(1);
    await people.disable(email);
    expect(await send('disabled')).toBe(550);
    await people.enable(email);
    expect(await send('enabled-again')).toBe(250);
    expect(await count()).toBe(2);
    // Kept while they were disabled: only what came while they could sign in.
    const kept = await store.list(email, new Date(clock.now()));
    expect(
      kept.items
        .map((i) => i.fileName)
        .filter((n) => n.startsWith('departed-'))
        .sort(),
    ).toEqual(['departed-enabled-again.pdf', 'departed-enabled.pdf']);
    // Removed, their inbox and address go with them (decision 0128): the address is unknown now.
    await people.remove(email);
    expect(await send('removed')).toBe(550);
    expect((await store.list(email, new Date(clock.now()))).items).toEqual([]);
    expect(t.logs.filter((l) => l.includes('receipt mail refused')).length).toBeGreaterThanOrEqual(
      2,
    );
  });
});
