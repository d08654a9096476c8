import type { ExportFormat, IndexQuery } from '@card-console/shared/api/transaction-index';
import { apiFile } from '../../../lib/api-client';
import { downloadCsv } from '../../../lib/download-csv';
import { dispositionFileName } from '../export-file-name';

/** The list's filter and order, and how the file shows dates: in the person's zone. */
export type TransactionExport = Omit<IndexQuery, 'cursor' | 'limit' | 'refresh'> & {
  /** IANA time zone the CSV's dates are written in. */
  tz: string;
  fromDay?: string | undefined;
  toDay?: string | undefined;
  /** Card Console's own columns (none), or the bank CSV QuickBooks Online or Xero imports. */
  format?: Exclude<ExportFormat, 'card-console'> | undefined;
  /** Which part of an accounting file past its importer's limit (from 1). */
  part?: number | undefined;
  /**
   * With `part`: the posted rows and cents the parts were planned from, as the screen shows
   * them; the BFF answers 409 `matching_changed` when the posted set is no longer that.
   */
  planned?: { count: number; cents: number } | undefined;
};

/**
 * Downloads every transaction of the list as CSV, saved under the name the server gives
 * (`Content-Disposition`), or `fallbackName` when it gives none, once its receipt says the
 * file is whole.
 */
export function exportTransactionsCsv(query: TransactionExport, fallbackName: string) {
  const { part, planned, ...rest } = query;
  return downloadCsv(
    apiFile('index.exportCsv', {
      query: {
        ...rest,
        part: part === undefined ? undefined : String(part),
        postedRows: planned === undefined ? undefined : String(planned.count),
        postedCents: planned === undefined ? undefined : String(planned.cents),
      },
    }),
    { fileName: dispositionFileName, fallbackName },
  );
}
