import type { ExportFormat, IndexQuery } from '@card-console/shared/api/transaction-index';
import { instantToIsoDay } from '@card-console/shared/dates';
import { ExportCsvButton } from '../../../components/export-csv-button';
import { downloadReceiptsZip } from '../api/download-receipts-zip';
import { exportTransactionsCsv } from '../api/export-transactions-csv';
import { exportFileName } from '../export-file-name';

interface ExportButtonProps {
  /** The list's query: the file holds exactly its rows, in its order. */
  query: IndexQuery;
  /** The days shown, which name the file. */
  days: { from?: string | undefined; to?: string | undefined };
  /** Names the file when the server does not: the sub account's, or none for all of them. */
  subAccountName: string | undefined;
  /** Why there is nothing to export, if so. */
  blocked: string | undefined;
}

type Format = Exclude<ExportFormat, 'card-console'>;

/** The accounting packages' bank CSVs: the same rows, in the columns each one imports. */
const ACCOUNTING: { format: Format; label: string; description: string }[] = [
  {
    format: 'quickbooks',
    label: 'QuickBooks CSV',
    description:
      'The same transactions as a QuickBooks Online bank CSV: Date, Description, Amount.',
  },
  {
    format: 'xero',
    label: 'Xero CSV',
    description: 'The same transactions as a Xero bank statement CSV.',
  },
];

/**
 * "Export CSV" of exactly the list shown, its dates in the person's zone; beside it the same
 * rows as QuickBooks Online's and Xero's bank transaction CSV, and their receipts as one ZIP.
 */
export function ExportButton({ query, days, subAccountName, blocked }: ExportButtonProps) {
  const { cursor: _c, limit: _l, refresh: _r, by: _b, ...filter } = query;
  const download = (format: Format | undefined) => (tz: string) =>
    exportTransactionsCsv(
      { ...filter, tz, fromDay: days.from, toDay: days.to, format },
      exportFileName(`${subAccountName ?? 'all sub accounts'}${format ? ` ${format}` : ''}`, {
        from: days.from,
        to: days.to,
        today: instantToIsoDay(Date.now(), tz),
      }),
    );
  const receipts = (tz: string) =>
    downloadReceiptsZip(
      { ...filter, tz, fromDay: days.from, toDay: days.to },
      exportFileName('receipts', {
        from: days.from,
        to: days.to,
        today: instantToIsoDay(Date.now(), tz),
      }).replace(/\.csv$/, '.zip'),
    );
  return (
    <div className="export-buttons">
      <ExportCsvButton download={download(undefined)} blocked={blocked} />
      {/* The accountant's files and the receipts behind one disclosure: four buttons beside
          the month close's presets took the title row to two lines at 1280 px. */}
      <details className="export-more">
        <summary>More formats</summary>
        <div className="export-more-panel">
          {ACCOUNTING.map((a) => (
            <ExportCsvButton
              key={a.format}
              download={download(a.format)}
              blocked={blocked}
              label={a.label}
              description={a.description}
            />
          ))}
          <ExportCsvButton
            download={receipts}
            blocked={blocked}
            label="Download receipts (ZIP)"
            description="The receipts attached to these transactions, as one ZIP file."
          />
        </div>
      </details>
    </div>
  );
}
