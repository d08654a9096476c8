import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Response } from 'express';
import type { ExportStreamContext } from '../transactions';
import type { CsvPage } from './audit-export';

/**
 * Streams the export, one store page per write, as the transactions export does
 * (`features/transactions/stream-csv.ts` says why each step is there): pipeline() waits for
 * 'drain', so a slow reader slows the walk; a walk that fails after the first byte, a receipt
 * that cannot be recorded or a shutdown's cut destroys the socket, so the download breaks off
 * instead of looking complete; the receipt, recorded after the last row, is what lets the SPA
 * offer the file. Never throws: the headers are already sent.
 */
export async function streamAuditCsv(
  res: Response,
  header: string,
  pages: AsyncIterable<CsvPage>,
  ctx: ExportStreamContext,
): Promise<void> {
  const log = ctx.logger.child({ requestId: ctx.requestId, traceId: ctx.traceId });
  let rows = 0;
  let cut = false;
  // Decided where the walk's error surfaces: by the time pipeline settles, destroying the
  // response has fired 'close', so `clientGone` is aborted even though the client never left.
  let failure: unknown;
  let failed = false;
  const cutNow = () => {
    cut = true;
    log.warn({ rows }, 'audit export cut: the server is shutting down; the download is broken off');
    ctx.metrics.exportCut('shutdown');
    res.destroy();
  };
  async function* body() {
    let bytes = 0;
    const chunk = (text: string) => {
      const buffer = Buffer.from(text);
      bytes += buffer.length;
      return buffer;
    };
    yield chunk(header);
    try {
      for await (const page of pages) {
        rows += page.rows;
        if (page.rows > 0) yield chunk(page.text);
      }
    } catch (error) {
      if (!ctx.clientGone.aborted) {
        failed = true;
        failure = error;
      }
      throw error;
    }
    if (cut || ctx.clientGone.aborted) return;
    try {
      await ctx.recordReceipt({ rows, bytes });
    } catch (error) {
      failed = true;
      failure = error;
      throw error;
    }
  }
  if (ctx.cutOff.aborted) cutNow();
  else ctx.cutOff.addEventListener('abort', cutNow, { once: true });
  try {
    await pipeline(Readable.from(body(), { highWaterMark: 2 }), res);
    log.info({ rows }, 'audit export finished');
  } catch (error) {
    if (cut) {
      // Logged when it was cut.
    } else if (failed) {
      ctx.metrics.exportCut('failed');
      log.error(
        { rows, err: failure },
        'audit export failed after the first byte; connection destroyed',
      );
    } else if (ctx.clientGone.aborted) {
      ctx.metrics.exportCut('client_gone');
      log.info({ rows }, 'audit export stopped: the client went away');
    } else {
      ctx.metrics.exportCut('failed');
      log.error({ rows, err: error }, 'audit export failed; connection destroyed');
    }
    res.destroy();
  } finally {
    ctx.cutOff.removeEventListener('abort', cutNow);
  }
}
