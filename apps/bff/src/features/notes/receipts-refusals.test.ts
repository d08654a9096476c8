// What the receipt upload refuses or cleans, over real HTTP: card numbers smuggled through a file
// name that cleaning would join, metadata hidden where a first-scan stripper does not look,
// pictures declaring more pixels than anyone can show, and PDFs that act when opened.
import { apiErrorBodySchema } from '@card-console/shared/api/error';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  EOI,
  frame,
  jfif,
  jpeg,
  pdf,
  png,
  pngChunk,
  SECRET,
  scan,
  segment,
} from '../../test/crafted-receipts';
import { startTestApp, type TestApp, type TestSession } from '../../test/harness';
import { pdfReceipt } from '../../test/receipt-files';
import { testPan } from '../../test/test-pan';

let t: TestApp;
let finance: TestSession;

beforeAll(async () => {
  t = await startTestApp({ env: { rateLimits: { uploadsPerMinute: 1_000 } } });
  finance = await t.signIn('finance');
});
afterAll(async () => t?.close());

let used = 0;
function freshTransactionId(): string {
  const sub = t.sim.data.subAccounts()[1];
  const tx = sub ? t.sim.data.transactions(sub.id)[used++] : undefined;
  if (!tx) throw new Error('the simulator has no transaction left to test with');
  return tx.id;
}
const receiptsPath = (id: string) => `/api/transactions/${encodeURIComponent(id)}/receipts`;

/** Uploads `bytes`; `header` is X-File-Name exactly as sent (already percent-encoded). */
function upload(id: string, bytes: Buffer, header?: string) {
  const req = t.request
    .post(receiptsPath(id))
    .set(finance.headers())
    .set('content-type', 'application/octet-stream');
  if (header !== undefined) req.set('x-file-name', header);
  return req.send(bytes);
}
const named = (name: string) => encodeURIComponent(name);

async function listed(id: string) {
  const res = await t.request.get(receiptsPath(id)).set(finance.headers());
  expect(res.status).toBe(200);
  return res.body.items as { id: string; fileName: string }[];
}

async function storedBytes(id: string, receiptId: string): Promise<Buffer> {
  const res = await t.request
    .get(`${receiptsPath(id)}/${receiptId}`)
    .set(finance.headers())
    .buffer(true)
    .parse((response, done) => {
      const chunks: Buffer[] = [];
      response.on('data', (c: Buffer) => chunks.push(c));
      response.on('end', () => done(null, Buffer.concat(chunks)));
    });
  expect(res.status).toBe(200);
  return res.body as Buffer;
}

function expectProblem(res: { status: number; body: unknown }, status: number, code: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  const problem = apiErrorBodySchema.parse(res.body);
  expect(problem).toMatchObject({ status, code });
  return problem;
}

describe('a file name that holds a card number once cleaned', () => {
  it('is refused with 400 in every smuggling form, and nothing is stored', async () => {
    const pan = testPan(42);
    const groups = pan.match(/.{4}/g) ?? [];
    const id = freshTransactionId();
    const forms = [
      `${groups.join(':')}.png`,
      `${groups.join('|')}.png`,
      `${groups.join('"')}.png`,
      `${groups.join('<')}.png`,
      `${groups.join('>')}.png`,
      `${groups.join('*')}.png`,
      `${groups.join('?')}.png`,
      `<${groups[0]}>${groups[1]}:|${groups[2]}"*?${groups[3]}.png`,
      `receipt ${groups.join(' : ')}.pdf`,
      `${groups.join('\u2028')}.pdf`,
    ];
    const headers = [
      ...forms.map(named),
      // Percent-encoded by hand, as any client may send it.
      `${groups.join('%3A')}.png`,
      `${groups.join('%7C')}.png`,
      `${groups.join('%22%3C%3E')}.png`,
    ];
    for (const header of headers) {
      const res = await upload(id, pdfReceipt(), header);
      const problem = expectProblem(res, 400, 'invalid_request');
      expect(problem.detail, header).toMatch(/card number/);
    }
    expect(await listed(id)).toEqual([]);
    const trail = JSON.stringify((await t.audit.list({ limit: 1000 })).items);
    expect(trail).not.toContain(pan);
    expect(trail).not.toContain(groups.join(':'));
    // The same characters between ordinary digits are cleaned as before.
    const ok = await upload(id, pdfReceipt(), named('invoice 2026:11|42.pdf'));
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
    expect(ok.body.fileName).toBe('invoice 20261142.pdf');
  });
});

describe('picture metadata where a stripper stops early', () => {
  it('is gone from a stored JPEG when it follows the first scan or the end of image', async () => {
    const id = freshTransactionId();
    const input = jpeg(
      jfif(),
      frame(2, 2, 0xc2),
      scan('first-scan'),
      segment(0xe1, `Exif\0\0MM\0*${SECRET}`),
      segment(0xfe, SECRET),
      scan('second-scan'),
      EOI,
      Buffer.from(`trailer ${SECRET}`),
    );
    const res = await upload(id, input, named('photo.jpg'));
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const stored = await storedBytes(id, res.body.id);
    expect(stored.includes(Buffer.from(SECRET))).toBe(false);
    expect(stored).toEqual(
      jpeg(jfif(), frame(2, 2, 0xc2), scan('first-scan'), scan('second-scan'), EOI),
    );
  });

  it('is gone from a stored PNG when it sits in a private chunk or after IEND', async () => {
    const id = freshTransactionId();
    const input = png([pngChunk('prVt', SECRET)], { after: Buffer.from(SECRET) });
    const res = await upload(id, input, named('scan.png'));
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const stored = await storedBytes(id, res.body.id);
    expect(stored.includes(Buffer.from(SECRET))).toBe(false);
    expect(stored).toEqual(png());
  });
});

describe('files refused for what they hold', () => {
  it('a PNG declaring 100,000 × 100,000 pixels is a 422 that says so, and is not stored', async () => {
    const id = freshTransactionId();
    const res = await upload(id, png([], { width: 100_000, height: 100_000 }), named('huge.png'));
    const problem = expectProblem(res, 422, 'image_too_large');
    expect(problem.detail).toContain('100000 × 100000 pixels');
    expect(problem.detail).toContain('at most 100 million');
    expect(await listed(id)).toEqual([]);
  });

  it('a PDF that runs script or acts when opened is a 422 that says why, and is not stored', async () => {
    const id = freshTransactionId();
    for (const catalog of [
      '/OpenAction << /S /J#61vaScript /JS (app.alert(1)) >>',
      '/Names << /EmbeddedFiles 9 0 R >>',
      '/AA << /O << /S /Launch /F (calc.exe) >> >>',
    ]) {
      const res = await upload(id, pdf(catalog), named('invoice.pdf'));
      const problem = expectProblem(res, 422, 'pdf_active_content');
      expect(problem.detail, catalog).toMatch(/run script, act when opened or carry other files/);
    }
    expect(await listed(id)).toEqual([]);
  });

  it('a damaged picture is a 400', async () => {
    const res = await upload(freshTransactionId(), png().subarray(0, 40), named('cut.png'));
    expectProblem(res, 400, 'invalid_body');
  });
});
