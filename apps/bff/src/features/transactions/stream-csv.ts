import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { stringify } from 'csv-stringify';
import type { Response } from 'express';
import type { Logger } from 'pino';
import { AppError } from '../../http/app-error';
import { csvColumns } from './csv-row';
import type { ExportRows } from './export-service';

/**
 * Streams records to the response with backpressure (pipeline waits for 'drain'). If the walk
 * fails after the first byte, the socket is destroyed so the client sees a broken download,
 * never a file that looks complete. Never throws: headers are already sent.
 */
export async function streamCsv(
  res: Response,
  rows: ExportRows,
  ctx: { logger: Logger; requestId: string; clientGone: AbortSignal },
): Promise<void> {
  const log = ctx.logger.child({ requestId: ctx.requestId });
  let count = 0;
  const counted = async function* () {
    for await (const record of rows.records) {
      count += 1;
      yield record;
    }
  };
  try {
    await pipeline(
      Readable.from(counted(), { highWaterMark: 256 }),
      stringify({ header: true, columns: [...csvColumns], record_delimiter: 'windows' }),
      res,
    );
    log.info({ rows: count, pages: rows.pagesRead() }, 'csv export finished');
  } catch (error) {
    if (ctx.clientGone.aborted) {
      log.info(
        { rows: count, pages: rows.pagesRead() },
        'csv export stopped: the client went away',
      );
    } else {
      const code = error instanceof AppError ? error.code : 'internal_error';
      log.error(
        { rows: count, pages: rows.pagesRead(), code },
        'csv export failed after the first byte; connection destroyed',
      );
    }
    // pipeline has already destroyed the streams (ending the page walk); make sure the socket
    // goes too, so the client cannot mistake a truncated file for a complete one.
    res.destroy();
  }
}
