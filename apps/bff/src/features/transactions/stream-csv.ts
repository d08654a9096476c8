import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Response } from 'express';
import type { Logger } from 'pino';
import { AppError } from '../../http/app-error';
import { type Metrics, noMetrics } from '../../platform/metrics/metrics';
import { csvColumns } from './csv-row';
import { csvLines } from './csv-text';
import type { ExportRows } from './export-service';

/**
 * Streams the export to the response, one upstream page per write (a write per row would
 * cost a chunk header and a syscall each). pipeline() waits for 'drain', so a slow reader
 * slows the page walk instead of filling memory. If the walk fails after the first byte, the
 * socket is destroyed so the client sees a broken download, never a file that looks complete.
 * Never throws: the headers are already sent.
 *
 * Whether the walk failed or the client went away is decided where the walk's error surfaces,
 * not by `clientGone` afterwards: pipeline() destroys the response when the walk fails, which
 * fires its 'close', and since Node 22 (nodejs/node#53462) pipeline settles only after that
 * 'close', so `clientGone` is already aborted by then even though the client never left.
 *
 * `cutOff` is aborted when a shutdown's grace period ends with the export still running: the
 * connection is destroyed at once, without the chunked body's terminating chunk, so neither
 * the browser nor a proxy in front can take the part sent for a complete file.
 */
export async function streamCsv(
  res: Response,
  rows: ExportRows,
  ctx: {
    logger: Logger;
    requestId: string;
    traceId?: string;
    clientGone: AbortSignal;
    cutOff?: AbortSignal;
    metrics?: Metrics;
  },
): Promise<void> {
  const log = ctx.logger.child({ requestId: ctx.requestId, traceId: ctx.traceId });
  const metrics = ctx.metrics ?? noMetrics;
  let cut = false;
  const cutNow = () => {
    cut = true;
    log.warn(
      { rows: rows.rowsOut(), pages: rows.pagesRead() },
      'csv export cut: the server is shutting down; the download is broken off, not ended',
    );
    metrics.exportCut('shutdown');
    res.destroy();
  };
  const headerLine = csvLines([csvColumns]);
  let walkFailed = false;
  let walkError: unknown;
  async function* csvText() {
    // The header row goes out at once: the download has started, whatever the walk does next.
    yield headerLine;
    try {
      yield* rows.chunks;
    } catch (error) {
      // A walk stopped because the client left fails too (its requests are aborted): that is
      // the client going away, not the walk failing.
      if (!ctx.clientGone.aborted) {
        walkFailed = true;
        walkError = error;
      }
      throw error;
    }
  }
  if (ctx.cutOff?.aborted) cutNow();
  else ctx.cutOff?.addEventListener('abort', cutNow, { once: true });
  try {
    await pipeline(Readable.from(csvText(), { highWaterMark: 2 }), res);
    log.info({ rows: rows.rowsOut(), pages: rows.pagesRead() }, 'csv export finished');
  } catch (error) {
    if (cut) {
      // Logged when it was cut; the walk stopped because the response went.
    } else if (!walkFailed && ctx.clientGone.aborted) {
      metrics.exportCut('client_gone');
      log.info(
        { rows: rows.rowsOut(), pages: rows.pagesRead() },
        'csv export stopped: the client went away',
      );
    } else {
      const cause = walkFailed ? walkError : error;
      const code = cause instanceof AppError ? cause.code : 'internal_error';
      metrics.exportCut('failed');
      log.error(
        { rows: rows.rowsOut(), pages: rows.pagesRead(), code },
        'csv export failed after the first byte; connection destroyed',
      );
    }
    // pipeline has already destroyed the streams (ending the page walk); make sure the socket
    // goes too, so the client cannot mistake a truncated file for a complete one.
    res.destroy();
  } finally {
    ctx.cutOff?.removeEventListener('abort', cutNow);
  }
}
