import { instantToIsoDay } from '@card-console/shared/dates';
import { ExportCsvButton } from '../../../components/export-csv-button';
import { exportTransactionsCsv } from '../api/export-transactions-csv';
import { exportFileName } from '../export-file-name';
import type { TransactionFilter, TransactionsSearch } from '../transactions-search';

interface ExportButtonProps {
  filter: TransactionFilter | undefined;
  search: Pick<TransactionsSearch, 'from' | 'to'>;
  /** Names the file when the server does not. */
  subAccountName: string | undefined;
  /** Why there is nothing to export, if so. */
  blocked: string | undefined;
}

/** "Export CSV" of the filter shown, its dates in the person's zone. */
export function ExportButton({ filter, search, subAccountName, blocked }: ExportButtonProps) {
  const download = filter
    ? (tz: string) =>
        exportTransactionsCsv(
          { ...filter, tz, fromDay: search.from, toDay: search.to },
          exportFileName(subAccountName ?? filter.subAccountId, {
            from: search.from,
            to: search.to,
            today: instantToIsoDay(Date.now(), tz),
          }),
        )
    : undefined;
  return <ExportCsvButton download={download} blocked={blocked} />;
}
