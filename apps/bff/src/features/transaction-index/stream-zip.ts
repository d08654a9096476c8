import { once } from 'node:events';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import archiver from 'archiver';
import type { Response } from 'express';
import type { ExportStreamContext } from '../transactions';

/** A file for the ZIP: its name in it, its bytes, its time. */
export interface ZipFile {
  name: string;
  content: Buffer;
  at: Date;
}

/** How much of a file is handed to the archive at once. */
export const ZIP_CHUNK_BYTES = 64 * 1024;

/**
 * Streams files into a ZIP on `res`, one at a time, at the reader's pace: a file goes in as a
 * stream of small chunks, so the archive takes it only as fast as the response drains, and the
 * next file is read only once the archive has taken the last one and the response has drained
 * (archiver's `entry` event alone says only that a file was handed over). A paused download
 * then holds about one file in memory, however many the ZIP has. Stored, not compressed:
 * pictures and PDFs are compressed already.
 *
 * Ends however the download does: when the client goes away (`clientGone`), a shutdown's grace
 * period ends (`cutOff`) or a file cannot be read, the archive is aborted (its `finalize()`
 * would wait for a reader that is gone) and the response destroyed (a broken download, never a
 * ZIP that looks whole). Never throws: the headers are already sent.
 */
export async function streamZip(
  res: Response,
  files: AsyncIterable<ZipFile>,
  ctx: Pick<ExportStreamContext, 'clientGone' | 'cutOff' | 'logger' | 'requestId' | 'metrics'>,
): Promise<void> {
  const log = ctx.logger.child({ requestId: ctx.requestId });
  const archive = archiver('zip', { store: true });
  const stop = new AbortController();
  const stopped = stop.signal;
  const onGone = () => stop.abort('client_gone');
  const onCutOff = () => stop.abort('shutdown');
  ctx.clientGone.addEventListener('abort', onGone);
  ctx.cutOff.addEventListener('abort', onCutOff);
  if (ctx.clientGone.aborted) onGone();
  if (ctx.cutOff.aborted) onCutOff();
  // Settles once the response has finished, rejects when it closes early (the client left:
  // `clientGone` says so first) or the archive broke. Awaited only at the end, caught here.
  const sent = pipeline(archive, res, { signal: stopped });
  sent.catch(() => stop.abort('failed'));
  let count = 0;
  try {
    stopped.throwIfAborted(); // a reader already gone has nothing read for it
    for await (const file of files) {
      archive.append(Readable.from(chunks(file.content)), { name: file.name, date: file.at });
      await once(archive, 'entry', { signal: stopped });
      if (res.writableNeedDrain) await once(res, 'drain', { signal: stopped });
      count++;
    }
    void archive.finalize().catch(() => {});
    await sent;
    log.info({ files: count }, 'receipts zip finished');
  } catch (error) {
    const reason = stopped.aborted ? String(stopped.reason) : 'failed';
    ctx.metrics.exportCut(reason);
    if (reason === 'failed') log.error({ err: error, files: count }, 'receipts zip failed');
    else log.info({ files: count, reason }, 'receipts zip stopped before its end');
    archive.abort();
    res.destroy();
  } finally {
    ctx.clientGone.removeEventListener('abort', onGone);
    ctx.cutOff.removeEventListener('abort', onCutOff);
  }
}

function* chunks(content: Buffer): Generator<Buffer> {
  let rest = content;
  while (rest.length > 0) {
    yield rest.subarray(0, ZIP_CHUNK_BYTES);
    rest = rest.subarray(ZIP_CHUNK_BYTES);
  }
}
