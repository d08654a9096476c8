import { apiFile } from '../../../lib/api-client';
import { downloadCsv } from '../../../lib/download-csv';
import type { AuditListFilter } from '../audit-filter';

/** Our own BFF's plain `filename="audit_….csv"`; anything else is not used. */
const FILE_NAME = /filename="(audit_[A-Za-z0-9_-]+\.csv)"/;

/**
 * Downloads every record of the filter as CSV, times also in `tz`, saved under the name the
 * BFF gives (`fallbackName` without one), once its receipt says the file is whole.
 */
export function exportAuditCsv(filter: AuditListFilter, tz: string, fallbackName: string) {
  const { from, to, ...rest } = filter;
  return downloadCsv(
    apiFile('audit.exportCsv', {
      query: {
        ...rest,
        from: from === undefined ? undefined : String(from),
        to: to === undefined ? undefined : String(to),
        tz,
      },
    }),
    { fileName: (disposition) => FILE_NAME.exec(disposition ?? '')?.[1], fallbackName },
  );
}
