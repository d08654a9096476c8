import { instantToIsoDay, localTimeZone } from '@card-console/shared/dates';
import { useId, useState } from 'react';
import { isApiError } from '../../../lib/api-error';
import { EXPORT_INTERRUPTED, exportTransactionsCsv } from '../api/export-transactions-csv';
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

/**
 * "Export CSV" of the filter shown, its dates in the person's zone. Busy, not disabled, while
 * it runs, and when there is nothing to export: a disabled button would drop the focus to the
 * page and could not say why it does nothing.
 */
export function ExportButton({ filter, search, subAccountName, blocked }: ExportButtonProps) {
  const [exporting, setExporting] = useState(false);
  const [exportError, setExportError] = useState<string | undefined>();
  const reasonId = useId();

  const onExport = async () => {
    if (!filter || blocked || exporting) return;
    setExporting(true);
    setExportError(undefined);
    try {
      const tz = localTimeZone();
      const fallback = exportFileName(subAccountName ?? filter.subAccountId, {
        from: search.from,
        to: search.to,
        today: instantToIsoDay(Date.now(), tz),
      });
      await exportTransactionsCsv(
        { ...filter, tz, fromDay: search.from, toDay: search.to },
        fallback,
      );
    } catch (error) {
      // An interrupted download's sentence says it all; other failures say what went wrong.
      if (isApiError(error) && error.code === EXPORT_INTERRUPTED) setExportError(error.message);
      else setExportError(`Export failed: ${error instanceof Error ? error.message : 'unknown'}`);
    } finally {
      setExporting(false);
    }
  };

  return (
    <>
      <button
        type="button"
        onClick={onExport}
        aria-disabled={exporting || blocked !== undefined || undefined}
        title={blocked}
        aria-describedby={blocked ? reasonId : undefined}
      >
        {exporting ? 'Exporting…' : 'Export CSV'}
      </button>
      {blocked ? (
        <span id={reasonId} className="visually-hidden">
          {blocked}
        </span>
      ) : null}
      {exportError ? (
        <p className="form-error export-error" role="alert">
          {exportError}
        </p>
      ) : null}
    </>
  );
}
