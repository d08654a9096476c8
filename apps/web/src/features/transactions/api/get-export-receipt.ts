import type { ExportReceipt } from '@card-console/shared/api/transactions';
import { apiJson } from '../../../lib/api-client';

/**
 * What a finished export produced, by the export's `X-Request-Id`; 404 `export_incomplete`
 * when it did not finish (or is not this person's). Never cached: asked once per download.
 */
export function fetchExportReceipt(requestId: string) {
  return apiJson<ExportReceipt>(
    `/api/transactions/export-receipts/${encodeURIComponent(requestId)}`,
  );
}
