// What the receipt endpoints answer, word for word where a person reads it: names missing or
// badly encoded, receipts that are not there, a reviewed transaction, a full one, and the
// headers a stored file is served with; and what the audit trail records of each.
import { apiErrorBodySchema } from '@card-console/shared/api/error';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { png } from '../../test/crafted-receipts';
import { startTestApp, type TestApp, type TestSession } from '../../test/harness';
import { pdfReceipt } from '../../test/receipt-files';

let t: TestApp;
let finance: TestSession;

beforeAll(async () => {
  t = await startTestApp({ env: { rateLimits: { uploadsPerMinute: 1_000 } } });
  finance = await t.signIn('finance');
});
afterAll(async () => t?.close());

let used = 0;
function freshTransaction() {
  const sub = t.sim.data.subAccounts()[1];
  const tx = sub ? t.sim.data.transactions(sub.id)[used++] : undefined;
  if (!tx || !sub) throw new Error('the simulator has no transaction left to test with');
  return { id: tx.id, subAccountId: sub.id };
}
const receiptsPath = (id: string) => `/api/transactions/${encodeURIComponent(id)}/receipts`;

function upload(id: string, bytes: Buffer, header?: string) {
  const req = t.request
    .post(receiptsPath(id))
    .set(finance.headers())
    .set('content-type', 'application/octet-stream');
  if (header !== undefined) req.set('x-file-name', header);
  return req.send(bytes);
}

function problem(res: { status: number; body: unknown }, status: number) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  return apiErrorBodySchema.parse(res.body);
}

const recordsOf = async (requestId: string | undefined) =>
  (await t.audit.list({ limit: 1000 })).items.filter((r) => r.requestId === requestId);

describe('the receipt endpoints', () => {
  it('name a file sent without a name "receipt", and record its sub account', async () => {
    const { id, subAccountId } = freshTransaction();
    const res = await upload(id, pdfReceipt());
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.fileName).toBe('receipt.pdf');
    const [record] = await recordsOf(res.headers['x-request-id']);
    expect(record).toMatchObject({ action: 'receipt.add', outcome: 'success', subAccountId });
  });

  it('say what is wrong with a name that is not percent-encoded UTF-8, and with a file', async () => {
    const { id } = freshTransaction();
    expect(problem(await upload(id, pdfReceipt(), '%E0%A4%A'), 400)).toMatchObject({
      code: 'invalid_request',
      detail: 'X-File-Name must be percent-encoded UTF-8.',
    });
    expect(problem(await upload(id, Buffer.from('<html></html>')), 415)).toMatchObject({
      code: 'unsupported_file',
      detail:
        'Upload a JPEG, PNG, WebP or HEIC picture or a PDF. The file’s contents decide its type, whatever its name.',
    });
    expect(problem(await upload(id, png().subarray(0, 40)), 400)).toMatchObject({
      code: 'invalid_body',
      detail: 'The file is damaged and cannot be read as a receipt.',
    });
    const huge = problem(await upload(id, png([], { width: 20_000, height: 10_000 })), 422);
    expect(huge).toMatchObject({
      code: 'image_too_large',
      detail:
        'The picture declares 20000 × 10000 pixels; a receipt can have at most 100 million. Scale it down and upload it again.',
    });
  });

  it('answer a receipt that is not there with a 404 that says so, to read or to remove', async () => {
    const { id } = freshTransaction();
    const missing = `${receiptsPath(id)}/rc_missingReceiptId`;
    for (const res of [
      await t.request.get(missing).set(finance.headers()),
      await t.request.delete(missing).set(finance.headers()),
    ]) {
      expect(problem(res, 404)).toMatchObject({
        code: 'not_found',
        detail: 'There is no such receipt.',
      });
    }
  });

  it('serve a stored file only to this site, never cached', async () => {
    const { id } = freshTransaction();
    const stored = await upload(id, png(), encodeURIComponent('scan.png'));
    const file = await t.request
      .get(`${receiptsPath(id)}/${stored.body.id}`)
      .set(finance.headers());
    expect(file.status).toBe(200);
    expect(file.headers['cross-origin-resource-policy']).toBe('same-origin');
    expect(file.headers['cache-control']).toBe('private, no-store');
    expect(file.headers['content-disposition']).toBe('inline; filename=scan.png');
  });

  it('refuse a full transaction and a reviewed one with the reason, and record the name tried', async () => {
    const { id } = freshTransaction();
    for (let i = 0; i < 10; i++) expect((await upload(id, pdfReceipt(i))).status).toBe(201);
    const full = await upload(id, pdfReceipt(10), encodeURIComponent('one more.pdf'));
    expect(problem(full, 409)).toMatchObject({
      code: 'too_many_receipts',
      detail: 'A transaction can have at most 10 receipts. Remove one before adding another.',
    });
    const [record] = await recordsOf(full.headers['x-request-id']);
    expect(record).toMatchObject({
      action: 'receipt.add',
      outcome: 'failed',
      after: { receipt: 'one more.pdf' },
      detail: 'too_many_receipts',
    });

    const { id: other } = freshTransaction();
    const first = await upload(other, pdfReceipt());
    const notes = await t.request.get(`/api/transactions/${other}/notes`).set(finance.headers());
    await t.request
      .patch(`/api/transactions/${other}/notes`)
      .set(finance.headers())
      .send({ version: notes.body.version, reviewed: true });
    for (const res of [
      await upload(other, pdfReceipt('after the review')),
      await t.request.delete(`${receiptsPath(other)}/${first.body.id}`).set(finance.headers()),
    ]) {
      const body = problem(res, 409);
      expect(body).toMatchObject({
        code: 'transaction_reviewed',
        detail:
          'This transaction has been reviewed, so its receipts are locked. Reopen it to change them.',
      });
      expect(body).toHaveProperty('current.review.state', 'reviewed');
    }
  });
});
