import { apiRequest } from '../../../lib/api-client';
import { ApiError } from '../../../lib/api-error';
import type { TransactionFilter } from '../transactions-search';

/** The body broke off part-way (the server stopped, the connection dropped). */
export const EXPORT_INTERRUPTED = 'export_interrupted';

/**
 * Downloads every transaction of the filter as CSV. A plain link cannot carry the
 * `X-CSRF: 1` header the BFF requires, so fetch it and hand the browser a Blob to save.
 * The file is offered only once the whole body has arrived: a server that cuts the stream
 * (it is shutting down) makes the read fail, and a short file must never look complete.
 */
export async function exportTransactionsCsv(filter: TransactionFilter, fileName: string) {
  const response = await apiRequest('/api/transactions/export.csv', {
    query: { ...filter },
    accept: 'text/csv',
  });
  let blob: Blob;
  try {
    blob = await response.blob();
  } catch {
    throw new ApiError({
      status: response.status,
      code: EXPORT_INTERRUPTED,
      message: 'The export was interrupted before it finished; nothing was saved. Try again.',
      requestId: response.headers.get('x-request-id') ?? undefined,
    });
  }
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
