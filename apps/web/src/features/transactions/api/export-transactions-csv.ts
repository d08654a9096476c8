import { apiRequest } from '../../../lib/api-client';
import { ApiError } from '../../../lib/api-error';
import { dispositionFileName } from '../export-file-name';
import type { TransactionFilter } from '../transactions-search';
import { fetchExportReceipt } from './get-export-receipt';

/** The body broke off part-way (the server stopped, the connection dropped). */
export const EXPORT_INTERRUPTED = 'export_interrupted';

/** The filter, and how the file shows dates: in the person's zone, named by the chosen days. */
export type TransactionExport = TransactionFilter & {
  /** IANA time zone the CSV's dates are written in. */
  tz: string;
  fromDay?: string | undefined;
  toDay?: string | undefined;
};

/**
 * Downloads every transaction of the filter as CSV, saved under the name the server gives
 * (`Content-Disposition`), or `fallbackName` when it gives none. A plain link cannot carry the
 * `X-CSRF: 1` header the BFF requires, so fetch it and hand the browser a Blob to save.
 *
 * The file is offered only once the whole body has arrived AND the BFF's receipt for this
 * export says it produced exactly that many bytes. A server that cuts the stream makes the
 * read fail when the connection reaches us directly, but a proxy in front may end the cut
 * download cleanly (haproxy does, over HTTP/2), so a short file must be caught end to end.
 */
export async function exportTransactionsCsv(query: TransactionExport, fallbackName: string) {
  const response = await apiRequest('/api/transactions/export.csv', {
    query: { ...query },
    accept: 'text/csv',
  });
  const fileName = dispositionFileName(response.headers.get('content-disposition')) ?? fallbackName;
  const requestId = response.headers.get('x-request-id') ?? undefined;
  const interrupted = () =>
    new ApiError({
      status: response.status,
      code: EXPORT_INTERRUPTED,
      message: 'The export was interrupted before it finished; nothing was saved. Try again.',
      requestId,
    });
  let blob: Blob;
  try {
    blob = await response.blob();
  } catch {
    throw interrupted();
  }
  if (!requestId) throw interrupted();
  // Missing (404 export_incomplete), unreachable or a different size: not known whole.
  const receipt = await fetchExportReceipt(requestId).catch(() => undefined);
  if (receipt?.bytes !== blob.size) throw interrupted();
  const url = URL.createObjectURL(blob);
  try {
    const link = document.createElement('a');
    link.href = url;
    link.download = fileName;
    link.hidden = true;
    document.body.append(link);
    link.click();
    link.remove();
  } finally {
    // Give the browser a moment to start the download before the URL goes away.
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  }
}
