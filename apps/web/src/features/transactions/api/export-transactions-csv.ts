import { apiRequest } from '../../../lib/api-client';
import type { TransactionFilter } from '../transactions-search';

/**
 * Downloads every transaction of the filter as CSV. A plain link cannot carry the
 * `X-CSRF: 1` header the BFF requires, so fetch it and hand the browser a Blob to save.
 */
export async function exportTransactionsCsv(filter: TransactionFilter, fileName: string) {
  const response = await apiRequest('/api/transactions/export.csv', {
    query: { ...filter },
    accept: 'text/csv',
  });
  const blob = await response.blob();
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
