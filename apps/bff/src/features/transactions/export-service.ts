import { AppError } from '../../http/app-error';
import type { Who } from '../../http/context';
import type { FeatureDeps } from '../../http/deps';
import { toCsvRecord } from './csv-row';
import { type TransactionFilter, toUpstreamParams } from './transactions-service';

export interface ExportRows {
  /** CSV records, one upstream page at a time, fetched only as the consumer pulls them. */
  pages: AsyncGenerator<string[][]>;
  /** Upstream pages read so far. */
  pagesRead(): number;
}

/**
 * Walks every upstream page of a filter. The first page is read (and its items checked) before
 * anything is sent, so an early failure is still a normal error answer. Later pages are read as the download
 * consumes rows, one page ahead (the next page is fetched while the current one streams out,
 * so at most two pages are in memory); `signal` (the browser went away) stops the walk.
 */
export function createExportService({ upstream }: Pick<FeatureDeps, 'upstream'>) {
  return {
    async open(who: Who, filter: TransactionFilter, signal: AbortSignal): Promise<ExportRows> {
      const ctx = { requestId: who.requestId, role: who.actor.role, signal };
      let pages = 0;
      const fetchPage = async (cursor?: string) => {
        const page = await upstream.listTransactionsDeferred(ctx, toUpstreamParams(filter, cursor));
        pages += 1;
        return page;
      };
      const first = await fetchPage();
      first.items(); // an unexpected first page is a normal 502, before the download starts

      async function* pagesOfRecords(): AsyncGenerator<string[][]> {
        let page = first;
        let previous: string | undefined;
        for (;;) {
          const cursor = page.metadata.nextCursor;
          // A cursor that does not move would loop forever.
          if (cursor !== undefined && cursor === previous) {
            throw new AppError(
              502,
              'upstream_invalid_response',
              'The card service repeated a page.',
            );
          }
          const next = cursor !== undefined && !signal.aborted ? fetchPage(cursor) : undefined;
          // Awaited below; if the walk is abandoned first, its failure must not go unhandled.
          next?.catch(() => {});
          // Checked only now, after the next page was asked for: the two overlap.
          yield page.items().map(toCsvRecord);
          if (!next) return;
          previous = cursor;
          page = await next;
        }
      }
      return { pages: pagesOfRecords(), pagesRead: () => pages };
    },
  };
}
