// The receipts ZIP over real HTTP: past its caps it is refused before any byte, with the counts;
// a reader that pauses holds it back (receipts are read from the store only as the download
// drains); and it holds the receipts as they stood when it started.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { apiErrorBodySchema } from '@card-console/shared/api/error';
import { receiptSchema } from '@card-console/shared/api/notes';
import type { IndexPage } from '@card-console/shared/api/transaction-index';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { quarterDemo, startTestApp, type TestApp, type TestSession } from '../../test/harness';
import { settledIndexList } from '../../test/settled-index';
import { unzip } from '../../test/zip';

const MB = 1024 * 1024;

let t: TestApp;
let finance: TestSession;
let rows: IndexPage['items'];
let used = 0;

beforeAll(async () => {
  t = await startTestApp({
    sim: quarterDemo,
    env: {
      rateLimits: { uploadsPerMinute: 1_000 },
      receiptsZip: { maxFiles: 8, maxBytes: 40 * MB },
    },
  });
  finance = await t.signIn('finance');
  rows = (await settledIndexList(t, finance, '?limit=200')).items.filter(
    (x) => x.notes === undefined,
  );
}, 60_000);
afterAll(async () => t?.close());

/** `n` transactions of the index not used by another test, tagged `tag`. */
async function tagged(tag: string, n: number) {
  const picked = rows.slice(used, used + n);
  used += n;
  if (picked.length < n) throw new Error('too few rows in the index');
  const res = await t.request
    .post('/api/transactions/notes')
    .set(finance.headers())
    .send({
      items: picked.map((x) => ({ subAccountId: x.subAccountId, id: x.id })),
      addTags: [tag],
    });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return picked;
}

/** A PDF of about `bytes`, every padding byte `fill`, so each file's content is its own. */
function pdfOf(bytes: number, fill: string): Buffer {
  const head = '%PDF-1.7\n% ';
  const tail = '\n1 0 obj\n<< /Type /Catalog >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n';
  return Buffer.from(head + fill.repeat(Math.max(0, bytes - head.length - tail.length)) + tail);
}

async function upload(id: string, bytes: Buffer, name = 'receipt.pdf') {
  const res = await t.request
    .post(`/api/transactions/${encodeURIComponent(id)}/receipts`)
    .set(finance.headers())
    .set('content-type', 'application/octet-stream')
    .set('x-file-name', encodeURIComponent(name))
    .send(bytes);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return receiptSchema.parse(res.body);
}

/** Large files compare by their hash: a failing comparison of megabytes prints no diff. */
const digest = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

const zipPath = (tag: string) => `/api/index/transactions/receipts.zip?tag=${tag}&tz=UTC`;

/** The ZIP over a socket of its own, not read until `resume` (a person's paused download). */
function pausedZip(path: string) {
  const chunks: Buffer[] = [];
  let response: http.IncomingMessage | undefined;
  let ended!: () => void;
  const finished = new Promise<void>((resolve) => {
    ended = resolve;
  });
  const req = http.get(`${t.url}${path}`, { headers: finance.headers(), agent: false }, (res) => {
    response = res;
    res.pause();
    res.on('data', (chunk: Buffer) => chunks.push(chunk));
    res.on('close', ended);
  });
  req.on('error', ended);
  return {
    started: () => vi.waitFor(() => expect(response).toBeDefined(), { timeout: 20_000 }),
    status: () => response?.statusCode,
    resume: () => response?.resume(),
    finished,
    body: () => Buffer.concat(chunks),
  };
}

/** Waits until `value()` has not changed for `quietMs` (the server has stalled). */
async function steady(value: () => number, quietMs = 500): Promise<number> {
  let last = value();
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, quietMs));
    if (value() === last) return last;
    last = value();
  }
}

/** What the kernel may hold for a reader that reads nothing (see stream-zip.test.ts). */
function kernelAllowance(): number {
  const field = (file: string, i: number) =>
    Number(readFileSync(`/proc/sys/net/ipv4/${file}`, 'utf8').trim().split(/\s+/)[i]);
  return field('tcp_wmem', 2) + field('tcp_rmem', 1);
}

describe('the receipts ZIP past its caps', () => {
  it('more receipts than a ZIP holds: 422 before any byte, with the counts, asking to narrow the period', async () => {
    const picked = await tagged('zip-many', 5);
    let bytes = 0;
    for (const [i, row] of picked.entries()) {
      bytes += (await upload(row.id, pdfOf(1_000, 'a'))).byteSize;
      if (i < 4) bytes += (await upload(row.id, pdfOf(1_000, 'b'))).byteSize;
    }
    const res = await t.request.get(zipPath('zip-many')).set(finance.headers());
    expect(res.status).toBe(422);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.headers['content-disposition']).toBeUndefined();
    const body = apiErrorBodySchema.parse(res.body);
    expect(body.code).toBe('receipts_zip_too_large');
    expect(res.body).toMatchObject({ files: 9, bytes, maxFiles: 8, maxBytes: 40 * MB });
    expect(body.detail).toBe(
      `These transactions have 9 receipts (${Math.ceil(bytes / 1024)} KB); one ZIP holds at most 8 receipts and 40 MB. ` +
        'Narrow the period or the filters, and download the rest in another ZIP.',
    );
  });

  it('more bytes than a ZIP holds: 422 the same way; within both caps the same person gets the ZIP', async () => {
    const picked = await tagged('zip-big', 5);
    const uploaded = [];
    for (const [i, row] of picked.entries())
      uploaded.push(await upload(row.id, pdfOf(9 * MB, String(i))));
    const fifth = uploaded[4];
    if (!fifth) throw new Error('no receipt');
    const refused = await t.request.get(zipPath('zip-big')).set(finance.headers());
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({
      code: 'receipts_zip_too_large',
      files: 5,
      maxBytes: 40 * MB,
    });
    expect(refused.body.bytes).toBe(45 * MB);
    expect(refused.body.detail).toMatch(/^These transactions have 5 receipts \(45 MB\); one ZIP/);

    // One removed: four receipts, 36 MB.
    const last = picked[4];
    if (!last) throw new Error('no row');
    await t.request
      .delete(`/api/transactions/${encodeURIComponent(last.id)}/receipts/${fifth.id}`)
      .set(finance.headers())
      .expect((res) => expect(res.status).toBeLessThan(300));
    const zip = pausedZip(zipPath('zip-big'));
    await zip.started();
    expect(zip.status()).toBe(200);
    zip.resume();
    await zip.finished;
    expect((await unzip(zip.body())).map((e) => digest(e.content))).toEqual(
      ['0', '1', '2', '3'].map((fill) => digest(pdfOf(9 * MB, fill))),
    );
  }, 60_000);
});

describe('the receipts ZIP and a reader that pauses', () => {
  it('reads receipts only as the download drains, and holds those that stood when it started: one removed meanwhile is left out, none added is in', async () => {
    const size = 3 * MB;
    const picked = await tagged('zip-snapshot', 7);
    const receipts = [];
    for (const [i, row] of picked.slice(0, 6).entries()) {
      receipts.push(await upload(row.id, pdfOf(size, String.fromCharCode(97 + i))));
    }
    const notesStore = await t.stores.notes();
    const reads = vi.spyOn(notesStore, 'receiptFile');
    try {
      const zip = pausedZip(zipPath('zip-snapshot'));
      await zip.started();
      expect(zip.status()).toBe(200);
      const read = await steady(() => reads.mock.calls.length);
      // What the kernel holds for a reader that reads nothing, and the file on its way: not
      // the six (18 MB).
      expect(read).toBeLessThanOrEqual(Math.ceil(kernelAllowance() / size) + 2);
      expect(read).toBeLessThan(6);

      // Meanwhile: the last receipt (not read yet) is removed; one is added to a transaction
      // of the ZIP and one to a transaction that had none.
      const gone = receipts[5];
      const sixth = picked[5];
      const seventh = picked[6];
      const first = picked[0];
      if (!gone || !sixth || !seventh || !first) throw new Error('too few rows');
      const removed = await t.request
        .delete(`/api/transactions/${encodeURIComponent(sixth.id)}/receipts/${gone.id}`)
        .set(finance.headers());
      expect(removed.status).toBeLessThan(300);
      await upload(first.id, pdfOf(1_000, 'x'), 'added.pdf');
      await upload(seventh.id, pdfOf(1_000, 'y'), 'added.pdf');

      zip.resume();
      await zip.finished;
      const entries = await unzip(zip.body());
      expect(entries.map((e) => digest(e.content))).toEqual(
        ['a', 'b', 'c', 'd', 'e'].map((fill) => digest(pdfOf(size, fill))),
      );
      expect(reads.mock.calls.length).toBe(6);
    } finally {
      reads.mockRestore();
    }
  }, 60_000);
});
