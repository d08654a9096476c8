// Receipts by email through the whole app: a person's private forwarding address, a receipt
// forwarded to it with a real SMTP client lands in their inbox and finds its transaction; a new
// address makes the old one refuse mail (logged, nothing stored), as it does an unknown one.
import { inboxAddressSchema, inboxListSchema } from '@card-console/shared/api/receipt-inbox';
import type { IndexTransaction } from '@card-console/shared/api/transaction-index';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { quarterDemo, startTestApp, type TestApp, type TestSession } from '../../test/harness';
import {
  DOMAIN,
  putFinanceInPeople,
  receiptMailClient,
  receiptMailListener,
} from '../../test/receipt-inbox-app';
import { mulberry32, renderReceipts, specFor } from '../../test/receipts/make-receipt';
import { settledIndexList } from '../../test/settled-index';

let t: TestApp;
let finance: TestSession;
let charge: IndexTransaction;
let receipt: { fileName: string; bytes: Buffer };

beforeAll(async () => {
  t = await startTestApp({
    sim: quarterDemo,
    env: { receiptMail: receiptMailListener() },
  });
  finance = await t.signIn('finance');
  // Its person is in People, as on a server: an address takes mail only while its person may
  // sign in.
  await putFinanceInPeople(t);
  const page = await settledIndexList(t, finance, '?limit=100');
  const charges = page.items.filter(
    (row) => row.cardId && row.amountCents < 0 && row.status === 'settled',
  );
  // One whose amount no other charge has, so the match is certain.
  charge = charges.find(
    (row) => charges.filter((other) => other.amountCents === row.amountCents).length === 1,
  ) as IndexTransaction;
  const rng = mulberry32(7);
  const made = await renderReceipts([
    specFor(
      {
        description: charge.description,
        merchant: charge.merchant?.description,
        categoryCode: charge.merchant?.categoryCode,
        amountCents: charge.amountCents,
        at: charge.date,
      },
      rng,
      { format: 'pdf', tip: 'none' },
    ),
  ]);
  receipt = made[0] as { fileName: string; bytes: Buffer };
}, 120_000);
afterAll(async () => t?.close());

/**
 * Sends as a mail server would: a 4xx answer (the inbox could not take it just now, 451) is
 * tried again a little later; a 5xx one is final.
 */
async function deliver(to: string) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await send(to);
    } catch (error) {
      const code = (error as { responseCode?: number }).responseCode ?? 0;
      if (code < 400 || code >= 500 || attempt === 5) {
        const why = t.logs.filter((line) => line.includes('receipt mail could not be delivered'));
        throw new Error(`${(error as Error).message}\n${why.join('\n')}`, { cause: error });
      }
      await new Promise((r) => setTimeout(r, 1_000 * attempt));
    }
  }
}

function send(to: string, subject = 'Fwd: your receipt') {
  const transport = receiptMailClient(t);
  return transport
    .sendMail({
      // Anyone can write any From: it says nothing of whose inbox this is.
      from: 'Card Console finance <someone-else@example.test>',
      to,
      subject,
      text: 'Forwarded receipt attached.',
      attachments: [{ filename: receipt.fileName, content: receipt.bytes }],
    })
    .finally(() => transport.close());
}

async function inbox() {
  const res = await t.request.get('/api/receipt-inbox').set(finance.headers());
  expect(res.status).toBe(200);
  return inboxListSchema.parse(res.body);
}

async function address() {
  const res = await t.request.get('/api/receipt-inbox/address').set(finance.headers());
  return inboxAddressSchema.parse(res.body);
}

describe('receipts by email', () => {
  let first: string;

  it('gives each person one private address, the same each time', async () => {
    const mine = await address();
    expect(mine.enabled).toBe(true);
    first = mine.address as string;
    expect(first).toMatch(
      new RegExp(`^receipts\\+[A-Za-z0-9_-]{32}@${DOMAIN.replace(/\./g, '\\.')}$`),
    );
    expect((await address()).address).toBe(first);
    const admin = await t.signIn('admin');
    const theirs = inboxAddressSchema.parse(
      (await t.request.get('/api/receipt-inbox/address').set(admin.headers())).body,
    );
    expect(theirs.address).not.toBe(first);
  });

  it('takes a forwarded receipt into its person’s inbox, where it finds its transaction', async () => {
    await deliver(first);
    let list = await inbox();
    for (
      let tries = 0;
      tries < 600 && (list.items.length === 0 || list.counts.reading > 0);
      tries++
    ) {
      await new Promise((r) => setTimeout(r, 100));
      list = await inbox();
    }
    expect(list.items).toHaveLength(1);
    const [item] = list.items;
    expect(item).toMatchObject({ via: 'email', fileName: receipt.fileName });
    const own =
      item?.status === 'attached'
        ? item.attached?.transactionId
        : item?.suggestions[0]?.transactionId;
    expect(own, JSON.stringify(item)).toBe(charge.id);
    const records = (await t.audit.list({ limit: 50 })).items;
    expect(
      records.some(
        (r) =>
          r.action === 'inbox.receive' &&
          r.actor === t.credentials.finance.email &&
          r.detail?.startsWith('email'),
      ),
    ).toBe(true);
  }, 120_000);

  it('refuses mail to an address replaced by a new one, and to an unknown one, logging it and keeping nothing', async () => {
    const rotated = await t.request.post('/api/receipt-inbox/address').set(finance.headers());
    expect(rotated.status).toBe(200);
    const next = inboxAddressSchema.parse(rotated.body).address as string;
    expect(next).not.toBe(first);
    const secret = first.slice('receipts+'.length, first.indexOf('@'));
    const logged = t.logs.length;
    await expect(send(first)).rejects.toMatchObject({ responseCode: 550 });
    await expect(send(`receipts+${'x'.repeat(32)}@${DOMAIN}`)).rejects.toMatchObject({
      responseCode: 550,
    });
    const refusals = t.logs.slice(logged).filter((line) => line.includes('receipt mail refused'));
    expect(refusals.length).toBeGreaterThanOrEqual(2);
    expect(t.logs.join('\n')).not.toContain(secret);
    expect((await inbox()).items).toHaveLength(1);
    const records = (await t.audit.list({ limit: 50 })).items;
    expect(records.some((r) => r.action === 'inbox.rotateAddress' && r.outcome === 'success')).toBe(
      true,
    );
    // The new one takes mail.
    await deliver(next);
    let list = await inbox();
    for (let tries = 0; tries < 100 && list.items.length < 2; tries++) {
      await new Promise((r) => setTimeout(r, 100));
      list = await inbox();
    }
    expect(list.items).toHaveLength(2);
  }, 120_000);
});
