import type { IndexQuery } from '@card-console/shared/api/transaction-index';
import { type ApiQuery, apiRequest } from '../../../lib/api-client';
import { saveBlob } from '../../../lib/save-blob';
import { dispositionFileName } from '../export-file-name';

/** The list's filter (its order and paging play no part in a ZIP). */
export type ReceiptsZipQuery = Omit<IndexQuery, 'cursor' | 'limit' | 'refresh' | 'by'>;

/**
 * Downloads the receipts of every transaction the list's filters select, as one ZIP the BFF
 * streams, saved under the name it gives. Fetched, not linked: a link cannot carry `X-CSRF`.
 */
export async function downloadReceiptsZip(query: ReceiptsZipQuery, fallbackName: string) {
  const response = await apiRequest('/api/index/transactions/receipts.zip', {
    query: Object.fromEntries(Object.entries(query).filter(([, v]) => v !== undefined)) as ApiQuery,
    accept: 'application/zip',
  });
  const name = dispositionFileName(response.headers.get('content-disposition')) ?? fallbackName;
  saveBlob(await response.blob(), name);
}
