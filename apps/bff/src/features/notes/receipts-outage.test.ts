// When the notes' store fails while a receipt is added or removed (the database lost mid-way),
// the person hears the outage, nothing changes, and the audit trail still shows the attempt as
// failed with an internal cause: an operator reading the trail sees what was tried and why it
// did not happen, not a gap.
import { apiErrorBodySchema } from '@card-console/shared/api/error';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { StoreUnavailableError } from '../../platform/store-unavailable';
import { startTestApp, type TestApp, type TestSession } from '../../test/harness';
import { pdfReceipt } from '../../test/receipt-files';

let t: TestApp;
let finance: TestSession;

beforeAll(async () => {
  t = await startTestApp({ env: { rateLimits: { uploadsPerMinute: 1_000 } } });
  finance = await t.signIn('finance');
});
afterAll(async () => t?.close());
afterEach(() => vi.restoreAllMocks());

let used = 0;
function freshTransactionId(): string {
  const sub = t.sim.data.subAccounts()[1];
  const tx = sub ? t.sim.data.transactions(sub.id)[used++] : undefined;
  if (!tx) throw new Error('the simulator has no transaction left to test with');
  return tx.id;
}
const receiptsPath = (id: string) => `/api/transactions/${encodeURIComponent(id)}/receipts`;

const upload = (id: string, name: string) =>
  t.request
    .post(receiptsPath(id))
    .set(finance.headers())
    .set('content-type', 'application/octet-stream')
    .set('x-file-name', encodeURIComponent(name))
    .send(pdfReceipt());

async function listed(id: string) {
  const res = await t.request.get(receiptsPath(id)).set(finance.headers());
  expect(res.status).toBe(200);
  return (res.body.items as { fileName: string }[]).map((r) => r.fileName);
}

const recordsOf = async (requestId: string | undefined) =>
  (await t.audit.list({ limit: 1000 })).items.filter((r) => r.requestId === requestId);

function expectOutage(res: { status: number; body: unknown }) {
  expect(res.status, JSON.stringify(res.body)).toBe(503);
  expect(apiErrorBodySchema.parse(res.body)).toMatchObject({ code: 'store_unavailable' });
}

const lost = () => new StoreUnavailableError('postgres', 'receipt change');

describe('a receipt change the notes store fails to make', () => {
  it('adding: the outage is answered, nothing is kept, and the trail records the failed attempt', async () => {
    const id = freshTransactionId();
    const notes = await t.stores.notes();
    vi.spyOn(notes, 'addReceipt').mockRejectedValueOnce(lost());
    const res = await upload(id, 'lunch.pdf');
    expectOutage(res);
    expect(await listed(id)).toEqual([]);
    expect(await recordsOf(res.headers['x-request-id'])).toMatchObject([
      {
        action: 'receipt.add',
        outcome: 'failed',
        target: id,
        after: { receipt: 'lunch.pdf' },
        detail: 'internal_error',
      },
    ]);
  });

  it('removing: the outage is answered, the receipt stays, and the trail records the failed attempt', async () => {
    const id = freshTransactionId();
    const added = await upload(id, 'taxi.pdf');
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    const notes = await t.stores.notes();
    vi.spyOn(notes, 'removeReceipt').mockRejectedValueOnce(lost());
    const res = await t.request
      .delete(`${receiptsPath(id)}/${added.body.id}`)
      .set(finance.headers());
    expectOutage(res);
    expect(await listed(id)).toEqual(['taxi.pdf']);
    expect(await recordsOf(res.headers['x-request-id'])).toMatchObject([
      { action: 'receipt.remove', outcome: 'failed', target: id, detail: 'internal_error' },
    ]);
  });
});
