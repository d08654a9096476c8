// The receipt reader's child process (started by receipt-reader.ts, never imported): reads one
// file at a time sent over the IPC channel and answers its fields. Apart from the BFF so that a
// slow OCR, a PDF that eats memory or a crash in either costs this process, not a request.
import { readdirSync } from 'node:fs';
import { setPriority } from 'node:os';
import eng from '@tesseract.js-data/eng';
import { createWorker, type Worker } from 'tesseract.js';
import { getResolvedPDFJS } from 'unpdf';
import { fieldsOf, pictureFieldsOf, type ReceiptFields } from './receipt-fields';
import type { ChildAnswer, ReadJob } from './receipt-reader';
import { ocrText, pdfLines } from './receipt-text';

/** Picture types tesseract decodes. HEIC/HEIF is not one of them (no decoder in its build). */
const PICTURES = new Set(['image/png', 'image/jpeg', 'image/webp']);

/**
 * Nice 10: on a two-core machine the reader must not take CPU from the BFF's requests, yet not
 * starve either on a busy one (at 19 it gets about 1.5% of a core beside one busy process, and a
 * picture overran its budget; at 10, about 10%: the requests still come first). On
 * Linux the nice value is per thread, and a thread inherits it when started: so each thread
 * running now (V8's, libuv's) is lowered, and threads started later (tesseract's worker) follow
 * the main thread's.
 */
const READER_NICENESS = 10;

function lowerPriority(): void {
  const lower = (id: number) => {
    try {
      setPriority(id, READER_NICENESS);
    } catch {
      // Not allowed or gone: the reader still works, only less politely.
    }
  };
  lower(0);
  if (process.platform !== 'linux') return;
  try {
    for (const task of readdirSync('/proc/self/task')) lower(Number(task));
  } catch {
    // No /proc: the main thread alone.
  }
}

/**
 * Tesseract's vigorous noise removal (`textord_heavy_nr`): specks on a photographed slip were
 * read as digits or points. Over 360 generated pictures (half JPEG, half PNG, a third speckled,
 * some turned), the total was read right on 341 with tesseract's default and 352 with it, and
 * misread (a wrong total, which suggests the wrong transaction) on 8 against 1; plain pictures
 * read alike (118 of 118 both), each picture ~6 % faster (decision 0118).
 */
const OCR_PARAMETERS = { textord_heavy_nr: '1' } as const;
/** Tesseract's own default, for a second read of a picture whose date the first missed. */
const OCR_DEFAULTS = { textord_heavy_nr: '0' } as const;

let ocr: Promise<Worker> | undefined;
/** One tesseract worker for the child's life, started by the first picture (~1.3 s). */
function ocrWorker(): Promise<Worker> {
  ocr ??= createWorker('eng', 1, {
    // The English model from npm (`@tesseract.js-data/eng`): never fetched at run time.
    langPath: eng.langPath,
    gzip: true,
    // Nothing written to disk (the image's root is read-only), nothing fetched.
    cacheMethod: 'none',
    // Without a handler tesseract.js rethrows a job's failure (a damaged picture) as an
    // uncaught exception, ending the process; with one, `recognize` just rejects.
    errorHandler: () => undefined,
  }).then(async (worker) => {
    await worker.setParameters(OCR_PARAMETERS);
    return worker;
  });
  return ocr;
}

/**
 * A picture's fields: read with noise removal, and when that finds no date, read again as
 * tesseract reads by default for the date alone (`pictureFieldsOf`): the default reading finds
 * dates the other misses, and misreads more totals (7 and 3 of two sets of 240 pictures, against
 * none). Over those 480, total and date were both read right on 441 with noise removal alone
 * and on 452 with the second reading, asked for 30 of them; no total or date read wrong either
 * way. Undefined when the picture holds no text at all.
 */
async function pictureFields(bytes: Uint8Array): Promise<ReceiptFields | undefined> {
  try {
    const worker = await ocrWorker();
    const text = await ocrText(worker, bytes);
    if (text.trim() === '') return undefined;
    return await pictureFieldsOf(text, async () => {
      await worker.setParameters(OCR_DEFAULTS);
      try {
        return await ocrText(worker, bytes);
      } finally {
        await worker.setParameters(OCR_PARAMETERS);
      }
    });
  } catch (error) {
    // A worker that failed once is not trusted with the next picture.
    const failed = ocr;
    ocr = undefined;
    await failed?.then((worker) => worker.terminate()).catch(() => undefined);
    throw error;
  }
}

async function answer(job: ReadJob): Promise<ChildAnswer> {
  try {
    const mediaType = job.mediaType.split(';')[0]?.trim().toLowerCase() ?? '';
    if (mediaType !== 'application/pdf' && !PICTURES.has(mediaType)) {
      return { id: job.id, ok: false, problem: 'unreadable', why: 'type' };
    }
    const fields =
      mediaType === 'application/pdf'
        ? await pdfLines(job.bytes).then((text) =>
            text.trim() === '' ? undefined : fieldsOf(text),
          )
        : await pictureFields(job.bytes);
    // A scanned PDF, a blank picture: nothing to read is not a receipt without fields.
    if (fields === undefined) return { id: job.id, ok: false, problem: 'unreadable', why: 'empty' };
    return { id: job.id, ok: true, fields };
  } catch {
    // The error may quote the file; the parent needs only that it is damaged.
    return { id: job.id, ok: false, problem: 'unreadable', why: 'damaged' };
  }
}

lowerPriority();
// The parent gone (crashed, killed): nothing left to read for.
process.on('disconnect', () => process.exit(0));
// The parent sends one job at a time; a chain keeps them in order should it ever send more.
let queue = Promise.resolve();
process.on('message', (job: ReadJob) => {
  queue = queue.then(async () => {
    const reply = await answer(job);
    process.send?.(reply);
  });
});
// pdf.js is a large module loaded on first use: loaded now, it is part of the child's start
// rather than of the first PDF's time budget.
await getResolvedPDFJS();
process.send?.({ ready: true } satisfies ChildAnswer);
