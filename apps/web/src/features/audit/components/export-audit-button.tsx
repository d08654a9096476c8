import { instantToIsoDay, localTimeZone } from '@card-console/shared/dates';
import { useId, useState } from 'react';
import { isApiError } from '../../../lib/api-error';
import { EXPORT_INTERRUPTED, exportAuditCsv } from '../api/export-audit-csv';
import type { AuditListFilter } from '../audit-filter';
import type { AuditSearch } from '../audit-search';

interface ExportAuditButtonProps {
  filter: AuditListFilter;
  search: Pick<AuditSearch, 'from' | 'to'>;
  /** Why there is nothing to export, if so. */
  blocked: string | undefined;
}

/** The BFF's name for the file, made here too in case a proxy drops its header. */
function fallbackName(search: Pick<AuditSearch, 'from' | 'to'>, tz: string): string {
  const last = search.to ?? instantToIsoDay(Date.now(), tz);
  return search.from ? `audit_${search.from}_${last}.csv` : `audit_until_${last}.csv`;
}

/**
 * "Export CSV" of every record the filters match, times in the person's zone and in UTC. Busy,
 * not disabled, while it runs, and when there is nothing to export (aria-disabled): a disabled
 * button would drop the focus to the page and could not say why it does nothing.
 */
export function ExportAuditButton({ filter, search, blocked }: ExportAuditButtonProps) {
  const [exporting, setExporting] = useState(false);
  const [exportError, setExportError] = useState<string | undefined>();
  const reasonId = useId();

  const onExport = async () => {
    if (blocked || exporting) return;
    setExporting(true);
    setExportError(undefined);
    try {
      const tz = localTimeZone();
      await exportAuditCsv(filter, tz, fallbackName(search, tz));
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
