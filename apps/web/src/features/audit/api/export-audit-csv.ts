import type { ExportReceipt } from '@card-console/shared/api/transactions';
import { apiJson, apiRequest } from '../../../lib/api-client';
import { ApiError } from '../../../lib/api-error';
import type { AuditListFilter } from '../audit-filter';

/** The body broke off part-way, or its receipt does not match what arrived. */
export const EXPORT_INTERRUPTED = 'export_interrupted';

/** Our own BFF's plain `filename="audit_….csv"`; anything else is not used. */
const FILE_NAME = /filename="(audit_[A-Za-z0-9_-]+\.csv)"/;

/**
 * Downloads every record of the filter as CSV, times also in `tz`, saved under the name the
 * BFF gives (`fallbackName` without one). Fetched rather than linked: a link cannot carry the
 * `X-CSRF` header. As with the transactions export, the file is offered only once the whole
 * body has arrived and the BFF's receipt for this export (GET
 * /api/transactions/export-receipts/:requestId, which holds every export's) says it sent
 * exactly that many bytes: a proxy in front may end a cut download cleanly.
 */
export async function exportAuditCsv(filter: AuditListFilter, tz: string, fallbackName: string) {
  const response = await apiRequest('/api/audit/export.csv', {
    query: { ...filter, tz },
    accept: 'text/csv',
  });
  const fileName =
    FILE_NAME.exec(response.headers.get('content-disposition') ?? '')?.[1] ?? fallbackName;
  const requestId = response.headers.get('x-request-id') ?? undefined;
  const interrupted = () =>
    new ApiError({
      status: response.status,
      code: EXPORT_INTERRUPTED,
      message: 'The export was interrupted before it finished; nothing was saved. Try again.',
      requestId,
    });
  let blob: Blob;
  try {
    blob = await response.blob();
  } catch {
    throw interrupted();
  }
  if (!requestId) throw interrupted();
  const receipt = await apiJson<ExportReceipt>(
    `/api/transactions/export-receipts/${encodeURIComponent(requestId)}`,
  ).catch(() => undefined);
  if (receipt?.bytes !== blob.size) throw interrupted();
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
