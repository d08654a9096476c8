import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ExportReceipt } from '@card-console/shared/api/transactions';
import type { Response } from 'express';
import type { Logger } from 'pino';
import { AppError } from '../../core/app-error';
import { type Metrics, noMetrics } from '../../platform/metrics/metrics';
import { StoreUnavailableError } from '../../platform/store-unavailable';
import { csvColumns } from './csv-row';
import { csvLines } from './csv-text';
import type { ExportRows } from './export-service';

/**
 * Streams the export to the response, one upstream page per write (a write per row would
 * cost a chunk header and a syscall each). pipeline() waits for 'drain', so a slow reader
 * slows the page walk instead of filling memory. If the walk fails after the first byte, the
 * file must not look complete: with `endsWithReason` (a file streamed live from the card
 * service) it ends with one last row saying it is incomplete, after how many rows and why, so
 * the person holding the file knows; otherwise (files from the index, such as the accounting
 * files, which an import must never take half of) the socket is destroyed, a broken download.
 * Never throws: the headers are already sent.
 *
 * Whether the walk failed or the client went away is decided where the walk's error surfaces,
 * not by `clientGone` afterwards: pipeline() destroys the response when the walk fails, which
 * fires its 'close', and since Node 22 (nodejs/node#53462) pipeline settles only after that
 * 'close', so `clientGone` is already aborted by then even though the client never left.
 *
 * `cutOff` is aborted when a shutdown's grace period ends with the export still running: the
 * connection is destroyed at once, without the chunked body's terminating chunk.
 *
 * A proxy in front can still hide that cut (haproxy 2.6 ends an HTTP/2 stream cleanly when its
 * HTTP/1.1 upstream breaks off), so completeness is also proven end to end: after the last row
 * and before the response ends, `recordReceipt` is given the rows and the CSV bytes generated,
 * and the SPA offers the file only when a receipt with that many bytes exists. A receipt that
 * cannot be recorded fails the export like a failed walk: nothing is ended cleanly.
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
    /** Called once every row has been generated, before the response ends; may reject. */
    recordReceipt?: (receipt: ExportReceipt) => Promise<void>;
    /** The header row (default: one sub account's export, `csvColumns`). */
    columns?: readonly string[];
    /** A walk that fails part-way ends the file with a row saying so and why (see above). */
    endsWithReason?: boolean;
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
  const headerLine = csvLines([ctx.columns ?? csvColumns]);
  let walkFailed = false;
  let walkError: unknown;
  let receiptFailed = false;
  async function* csvText() {
    // The header row goes out at once: the download has started, whatever the walk does next.
    const header = Buffer.from(headerLine);
    let bytes = header.length;
    yield header;
    try {
      for await (const chunk of rows.chunks) {
        bytes += chunk.length;
        yield chunk;
      }
    } catch (error) {
      // A walk stopped because the client left fails too (its requests are aborted): that is
      // the client going away, not the walk failing.
      if (!ctx.clientGone.aborted) {
        walkFailed = true;
        walkError = error;
        if (ctx.endsWithReason && !cut) {
          yield Buffer.from(csvLines([incompleteRow(rows.rowsOut(), error, ctx.columns)]));
          return;
        }
      }
      throw error;
    }
    // A download already cut or abandoned gets no receipt: it will not end.
    if (cut || ctx.clientGone.aborted) return;
    try {
      await ctx.recordReceipt?.({ rows: rows.rowsOut(), bytes });
    } catch (error) {
      receiptFailed = true;
      walkError = error;
      throw error;
    }
  }
  if (ctx.cutOff?.aborted) cutNow();
  else ctx.cutOff?.addEventListener('abort', cutNow, { once: true });
  try {
    await pipeline(Readable.from(csvText(), { highWaterMark: 2 }), res);
    if (walkFailed) {
      metrics.exportCut('failed');
      log.error(
        { rows: rows.rowsOut(), pages: rows.pagesRead(), code: codeOf(walkError) },
        'csv export failed after the first byte; the file ends with a row saying it is incomplete',
      );
    } else {
      log.info({ rows: rows.rowsOut(), pages: rows.pagesRead() }, 'csv export finished');
    }
  } catch (error) {
    if (cut) {
      // Logged when it was cut; the walk stopped because the response went.
    } else if (receiptFailed) {
      // Before `clientGone`: the response this failure destroyed has closed by now (Node 22).
      metrics.exportCut('failed');
      log.error(
        { rows: rows.rowsOut(), pages: rows.pagesRead(), code: codeOf(walkError) },
        'csv export failed: its receipt could not be recorded; connection destroyed',
      );
    } else if (!walkFailed && ctx.clientGone.aborted) {
      metrics.exportCut('client_gone');
      log.info(
        { rows: rows.rowsOut(), pages: rows.pagesRead() },
        'csv export stopped: the client went away',
      );
    } else {
      const cause = walkFailed ? walkError : error;
      metrics.exportCut('failed');
      log.error(
        { rows: rows.rowsOut(), pages: rows.pagesRead(), code: codeOf(cause) },
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

/**
 * The last row of a file whose walk failed: its first cell says so, after how many rows, and
 * why (an AppError's sentence is written for people; anything else gets a plain one), the
 * other cells empty, so a spreadsheet shows it as a row of its own.
 */
export function incompleteRow(
  rowsWritten: number,
  error: unknown,
  columns: readonly string[] = csvColumns,
): string[] {
  const why =
    error instanceof AppError
      ? error.message
      : 'Card Console could not read the rest from the card service.';
  const rowWord = rowsWritten === 1 ? 'row' : 'rows';
  return [
    `INCOMPLETE: this file stops after ${rowsWritten.toLocaleString('en-US')} ${rowWord}. ${why} Export again for the whole file.`,
    ...columns.slice(1).map(() => ''),
  ];
}

function codeOf(error: unknown): string {
  if (error instanceof AppError) return error.code;
  return error instanceof StoreUnavailableError ? 'store_unavailable' : 'internal_error';
}
