import { instantToIsoDay } from '@card-console/shared/dates';
import { ExportCsvButton } from '../../../components/export-csv-button';
import { exportAuditCsv } from '../api/export-audit-csv';
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

/** "Export CSV" of every record the filters match, times in the person's zone and in UTC. */
export function ExportAuditButton({ filter, search, blocked }: ExportAuditButtonProps) {
  return (
    <ExportCsvButton
      download={(tz) => exportAuditCsv(filter, tz, fallbackName(search, tz))}
      blocked={blocked}
    />
  );
}
