// The index's export files (Card Console's CSV, QuickBooks' and Xero's) write every text cell
// through the one card-number matcher: a memo or tag an older build kept with a card number in
// a form it missed ("4111  1111  1111  1111", colons, tabs) leaves masked, and QuickBooks' and
// Xero's collapsed spaces cannot join it again. The number is made at run time.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findCardNumbers } from '../../platform/security/card-numbers';
import { parseCsv } from '../../test/csv';
import { quarterDemo, startTestApp, type TestApp, type TestSession } from '../../test/harness';
import { pngWithGps } from '../../test/receipt-files';
import { withCheckDigit } from '../../test/reference-luhn';
import { settledIndexList } from '../../test/settled-index';
import { unzip } from '../../test/zip';

let t: TestApp;
let finance: TestSession;
const pan = withCheckDigit('411111111111111');
const masked = `•••• ${pan.slice(-4)}`;
const inFours = (joiner: string) => pan.match(/.{4}/g)?.join(joiner) ?? pan;

beforeAll(async () => {
  t = await startTestApp({ sim: quarterDemo });
  finance = await t.signIn('finance');
}, 60_000);
afterAll(async () => t?.close());

/** The export's rows for the transactions tagged `tag`, header first. */
async function exported(tag: string, format?: string) {
  const res = await t.request
    .get(`/api/index/transactions/export.csv?tag=${tag}${format ? `&format=${format}` : ''}`)
    .set(finance.headers());
  expect(res.status).toBe(200);
  const rows = parseCsv(res.text).filter((r) => r.length > 1);
  for (const cell of rows.flat()) expect(findCardNumbers(cell), cell).not.toContain(pan);
  return rows;
}

describe('a card number kept in a memo by an older build, in the export files', () => {
  it.each([
    ['two spaces', '  ', 0],
    ['colons', ':', 1],
    ['tabs', '\t', 2],
    ['spaced dashes', ' - ', 3],
    ['a no-break space and a space', '\u00A0 ', 4],
  ])(
    'written with %s, leaves masked in each format',
    async (name, joiner, n) => {
      const page = await settledIndexList(t, finance);
      // A posted row (settled, refund, dispute: docs/money.md), so the accounting files hold it.
      const row = page.items.filter((x) => ['settled', 'refund', 'dispute'].includes(x.status))[n];
      if (!row) throw new Error('the index holds too few transactions');
      const tag = `mask-${name.replace(/\W+/g, '-')}`;
      // Straight into the store, as a build without today's matcher let it through.
      const notes = await t.stores.notes();
      const current = await notes.get(row.id);
      await notes.change(
        row.id,
        {
          version: current.version,
          memo: `Paid with ${inFours(joiner)} ok`,
          tags: [tag, inFours(joiner)],
        },
        'older-build@example.test',
        new Date(t.clock.now()),
      );

      const [header, ours] = await exported(tag);
      const cell = (column: string) => ours?.[header?.indexOf(column) ?? -1];
      expect(cell('id')).toBe(row.id);
      expect(cell('memo')).toBe(`Paid with ${masked} ok`);
      expect(cell('tags')).toBe(`${tag}, ${masked}`);

      const payee = row.merchant?.description ?? row.description;
      const [, quickbooks] = await exported(tag, 'quickbooks');
      expect(quickbooks?.[1]).toBe(`${payee} - Paid with ${masked} ok`);
      const [, xero] = await exported(tag, 'xero');
      // Xero's Description: the memo, then the card that paid (" · card …") when there is one.
      expect(xero?.[3]?.split(' · ')[0]).toBe(`Paid with ${masked} ok`);
    },
    60_000,
  );

  it('kept in a merchant, leaves masked in a receipts ZIP entry’s name too', async () => {
    const row = (await settledIndexList(t, finance)).items[10];
    if (!row) throw new Error('the index holds too few transactions');
    // The row as an older build's sync wrote it, the merchant's digits joined by colons.
    await t.stores.sql.query('UPDATE index_transaction SET merchant = $1 WHERE id = $2', [
      `Shop ${inFours(':')}`,
      row.id,
    ]);
    const notes = await t.stores.notes();
    const { version } = await notes.get(row.id);
    await notes.change(
      row.id,
      { version, tags: ['zip-mask'] },
      'finance@example.test',
      new Date(t.clock.now()),
    );
    const uploaded = await t.request
      .post(`/api/transactions/${encodeURIComponent(row.id)}/receipts`)
      .set(finance.headers())
      .set('content-type', 'application/octet-stream')
      .set('x-file-name', 'receipt.png')
      .send(pngWithGps());
    expect(uploaded.status, JSON.stringify(uploaded.body)).toBe(201);

    const zip = await t.request
      .get('/api/index/transactions/receipts.zip?tag=zip-mask&tz=UTC')
      .set(finance.headers())
      .buffer(true)
      .parse((res, done) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => done(null, Buffer.concat(chunks)));
      });
    expect(zip.status).toBe(200);
    const names = (await unzip(zip.body as Buffer)).map((entry) => entry.name);
    expect(names).toEqual([expect.stringContaining(`Shop ${masked}`)]);
    for (const name of names) expect(findCardNumbers(name), name).toEqual([]);
  }, 60_000);
});
