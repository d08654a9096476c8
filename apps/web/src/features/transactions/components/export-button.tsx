import type { IndexQuery } from '@card-console/shared/api/transaction-index';
import { instantToIsoDay } from '@card-console/shared/dates';
import { ExportCsvButton } from '../../../components/export-csv-button';
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

/** "Export CSV" of exactly the list shown, its dates in the person's zone. */
export function ExportButton({ query, days, subAccountName, blocked }: ExportButtonProps) {
  const { cursor: _c, limit: _l, refresh: _r, by: _b, ...filter } = query;
  const download = (tz: string) =>
    exportTransactionsCsv(
      { ...filter, tz, fromDay: days.from, toDay: days.to },
      exportFileName(subAccountName ?? 'all sub accounts', {
        from: days.from,
        to: days.to,
        today: instantToIsoDay(Date.now(), tz),
      }),
    );
  return <ExportCsvButton download={download} blocked={blocked} />;
}
