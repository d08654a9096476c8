import { downloadCsv } from '../../../lib/download-csv';
import { dispositionFileName } from '../export-file-name';
import type { TransactionFilter } from '../transactions-search';

/** The filter, and how the file shows dates: in the person's zone, named by the chosen days. */
export type TransactionExport = TransactionFilter & {
  /** IANA time zone the CSV's dates are written in. */
  tz: string;
  fromDay?: string | undefined;
  toDay?: string | undefined;
};

/**
 * Downloads every transaction of the filter as CSV, saved under the name the server gives
 * (`Content-Disposition`), or `fallbackName` when it gives none, once its receipt says the
 * file is whole.
 */
export function exportTransactionsCsv(query: TransactionExport, fallbackName: string) {
  return downloadCsv('/api/transactions/export.csv', {
    query: { ...query },
    fileName: dispositionFileName,
    fallbackName,
  });
}
