import type { IndexQuery } from '@card-console/shared/api/transaction-index';
import { apiFile } from '../../../lib/api-client';
import { saveBlob } from '../../../lib/save-blob';
import { dispositionFileName } from '../export-file-name';

/** The list's filter and order, as the CSV export takes them (the ZIP's names are in `tz`). */
export type ReceiptsZipQuery = Omit<IndexQuery, 'cursor' | 'limit' | 'refresh'> & {
  tz: string;
  fromDay?: string | undefined;
  toDay?: string | undefined;
};

/**
 * Downloads the receipts of every transaction the list's filters select, as one ZIP the BFF
 * streams, saved under the name it gives. Fetched, not linked: a link cannot carry `X-CSRF`.
 */
export async function downloadReceiptsZip(query: ReceiptsZipQuery, fallbackName: string) {
  const response = await apiFile('index.receiptsZip', { query });
  const name = dispositionFileName(response.headers.get('content-disposition')) ?? fallbackName;
  saveBlob(await response.blob(), name);
}
