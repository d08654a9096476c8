// The reader with its real child processes: receipts rendered by Chromium (make-receipt.ts),
// read by pdf.js and tesseract in the child, budgets enforced by killing it.
import { readFileSync } from 'node:fs';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../platform/logger';
import { readerChildren } from '../../../test/reader-children';
import { type ReceiptSpec, renderReceipts } from '../../../test/receipts/make-receipt';
import { createReceiptReader, type ReceiptReader } from './receipt-reader';

/** Three days ago: the reader believes no date older than two years, whenever this runs. */
const day = new Date(Date.now() - 3 * 86_400_000).toISOString().slice(0, 10);
const cafe: Omit<ReceiptSpec, 'format'> = {
  merchant: 'Harbor Cafe',
  address: '120 Market St\nSan Francisco, CA 94105',
  date: day,
  time: '12:41',
  details: ['Server: Nora  Table 7', 'Check #4471'],
  lines: [
    { name: 'Fish tacos', cents: 1650 },
    { name: 'Iced tea', cents: 450 },
  ],
  taxCents: 183,
  taxLabel: 'Sales tax 8.625%',
  totalCents: 2283,
  cardLine: 'VISA ****4821',
  footer: 'THANK YOU!',
};
const cafeFields = { totalCents: 2283, date: day, merchant: 'Harbor Cafe' };
/** A long till roll: OCR takes seconds, past a small time budget. */
const longRoll: ReceiptSpec = {
  merchant: 'Big Box Store',
  date: day,
  lines: Array.from({ length: 80 }, (_, i) => ({ name: `Item number ${i + 1}`, cents: 100 + i })),
  taxCents: 0,
  totalCents: 11_160,
  format: 'png',
  scale: 2,
};
/** What a phone's HEIC starts with: the reader takes no HEIC. */
const heic = Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypheic\0\0\0\0mif1heic')]);

let pdf: Buffer;
let png: Buffer;
let bigPng: Buffer;

beforeAll(async () => {
  const files = await renderReceipts([
    { ...cafe, format: 'pdf' },
    { ...cafe, format: 'png' },
    longRoll,
  ]);
  [pdf, png, bigPng] = files.map((file) => file.bytes) as [Buffer, Buffer, Buffer];
}, 120_000);

const logLines: string[] = [];
const logger = createLogger('debug', { write: (line: string) => void logLines.push(line) });
const readers: ReceiptReader[] = [];
function reader(options: Parameters<typeof createReceiptReader>[0] = { logger }) {
  const made = createReceiptReader(options);
  readers.push(made);
  return made;
}
afterEach(async () => {
  await Promise.all(readers.splice(0).map((r) => r.close()));
});

/** The one reader child there is, once it has started. */
async function theChild(): Promise<number> {
  for (;;) {
    const [child, ...more] = readerChildren();
    if (child !== undefined && more.length === 0) return child;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
const residentBytes = (pid: number) =>
  Number(readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+)/m)?.[1]) * 1024;
const onLinux = process.platform === 'linux';

describe('the receipt reader', () => {
  it('reads a PDF by its text layer and a picture by OCR, queued for one child; the text is never logged', async () => {
    const r = reader();
    const [fromPdf, fromPng] = await Promise.all([
      r.read(pdf, 'application/pdf'),
      r.read(png, 'image/png'),
    ]);
    expect(fromPdf).toEqual({ ok: true, fields: cafeFields });
    expect(fromPng).toEqual({ ok: true, fields: cafeFields });
    if (onLinux) expect(readerChildren()).toHaveLength(1);
    const log = logLines.join('');
    expect(log).toContain('receipt reader: read');
    for (const text of ['Harbor', 'Fish tacos', '22.83', '4821']) expect(log).not.toContain(text);
  }, 90_000);

  it('a file past the time budget answers too_slow; the next file is read by a fresh child', async () => {
    // The long roll needs the OCR worker's start and seconds of OCR; the PDF some 100 ms.
    const r = reader({ logger, timeBudgetMs: 1500 });
    const overBudget = r.read(bigPng, 'image/png');
    const killed = onLinux ? await theChild() : undefined;
    expect(await overBudget).toEqual({ ok: false, problem: 'too_slow' });
    expect(await r.read(pdf, 'application/pdf')).toEqual({ ok: true, fields: cafeFields });
    if (onLinux) expect(readerChildren()).not.toContain(killed);
  }, 90_000);

  it.runIf(onLinux)(
    'a child past the memory budget answers too_large; the next file is read by a fresh child',
    async () => {
      // The budget: halfway between what a child holds after a PDF and after a picture, both
      // measured here. OCR's worker and model take some 170 MB more; a fresh child reading a
      // PDF stays where it was. (A fixed 100 MB over the PDF's let a clean clone's picture read
      // through: what a child holds after a PDF varies with when its garbage was collected.)
      const held = async (file: Buffer, type: string) => {
        const measuring = reader();
        await measuring.read(file, type);
        const bytes = residentBytes(await theChild());
        await measuring.close();
        return bytes;
      };
      const afterPdf = await held(pdf, 'application/pdf');
      const afterPicture = await held(png, 'image/png');
      expect(afterPicture - afterPdf, 'OCR holds more than a PDF read').toBeGreaterThan(
        64 * 1024 * 1024,
      );

      // The child over it reads the long roll: seconds of OCR, each 250 ms of them looked at.
      // (The small picture's read can end before a look finds it past the budget: on a loaded
      // clean clone it answered ok, and its child was ended after its answer instead.)
      const r = reader({ logger, memoryBudgetBytes: (afterPdf + afterPicture) / 2 });
      const overBudget = r.read(bigPng, 'image/png');
      const killed = await theChild();
      expect(await overBudget).toEqual({ ok: false, problem: 'too_large' });
      expect(await r.read(pdf, 'application/pdf')).toEqual({ ok: true, fields: cafeFields });
      const [fresh, ...more] = readerChildren();
      expect(more).toEqual([]);
      expect(fresh).not.toBe(killed);
    },
    120_000,
  );

  it('damaged files and HEIC answer unreadable, and the next picture still reads', async () => {
    const r = reader();
    const unreadable = { ok: false, problem: 'unreadable' };
    expect(await r.read(Buffer.from('%PDF-1.7\n1 0 obj <<'), 'application/pdf')).toEqual(
      unreadable,
    );
    expect(await r.read(pdf.subarray(0, 3000), 'application/pdf')).toEqual(unreadable);
    expect(await r.read(png.subarray(0, 2000), 'image/png')).toEqual(unreadable);
    expect(await r.read(heic, 'image/heic')).toEqual(unreadable);
    // A PNG said to be a HEIF is not read either: the type decides, as the upload checked it.
    expect(await r.read(png, 'image/heif')).toEqual(unreadable);
    expect(await r.read(png, 'image/png')).toEqual({ ok: true, fields: cafeFields });
  }, 90_000);

  it.runIf(onLinux)(
    'a child that dies mid-file answers unreadable and is replaced',
    async () => {
      const r = reader();
      const reading = r.read(bigPng, 'image/png');
      const child = await theChild();
      process.kill(child, 'SIGKILL');
      expect(await reading).toEqual({ ok: false, problem: 'unreadable' });
      expect(await r.read(pdf, 'application/pdf')).toEqual({ ok: true, fields: cafeFields });
      expect(readerChildren()).not.toContain(child);
    },
    90_000,
  );

  it.runIf(onLinux)(
    'reads files side by side in up to `processes` children, and ends them once idle',
    async () => {
      const r = reader({ logger, processes: 2, idleMs: 3000 });
      const outcomes = await Promise.all([
        r.read(pdf, 'application/pdf'),
        r.read(pdf, 'application/pdf'),
        r.read(pdf, 'application/pdf'),
      ]);
      expect(outcomes).toEqual(Array(3).fill({ ok: true, fields: cafeFields }));
      expect(readerChildren()).toHaveLength(2);
      await expect.poll(readerChildren, { timeout: 15_000 }).toEqual([]);
    },
    90_000,
  );

  it.runIf(onLinux)(
    'close ends the children; reads in flight and after reject',
    async () => {
      const r = reader();
      // Caught at once: they reject while close() waits for the children to exit.
      const reading = r.read(bigPng, 'image/png').catch((error: Error) => error.message);
      const queued = r.read(pdf, 'application/pdf').catch((error: Error) => error.message);
      await r.close();
      expect(await reading).toBe('receipt reader closed');
      expect(await queued).toBe('receipt reader closed');
      await expect(r.read(pdf, 'application/pdf')).rejects.toThrow('receipt reader closed');
      expect(readerChildren()).toEqual([]);
    },
    30_000,
  );
});
