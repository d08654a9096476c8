import { api } from './api-client';
import { ApiError, type ClientErrorCode } from './api-error';
import { saveBlob } from './save-blob';

/** The body broke off part-way, or its receipt does not match what arrived. */
export const EXPORT_INTERRUPTED = 'export_interrupted' satisfies ClientErrorCode;

interface CsvDownload {
  /** The name the `Content-Disposition` header gives, if it is one to use. */
  fileName: (disposition: string | null) => string | undefined;
  /** The name when the header gives none. */
  fallbackName: string;
}

/**
 * Downloads a CSV export, saved under the name the BFF gives. Fetched rather than linked: a
 * link cannot carry the `X-CSRF: 1` header the BFF requires, so the browser is handed a Blob.
 *
 * The file is offered only once the whole body has arrived AND the BFF's receipt for this
 * export (GET /api/transactions/export-receipts/:requestId, which holds every export's) says
 * it produced exactly that many bytes. A server that cuts the stream makes the read fail when
 * the connection reaches us directly, but a proxy in front may end the cut download cleanly
 * (haproxy does, over HTTP/2), so a short file must be caught end to end.
 */
export async function downloadCsv(
  exported: Promise<Response>,
  { fileName, fallbackName }: CsvDownload,
) {
  const response = await exported;
  const name = fileName(response.headers.get('content-disposition')) ?? fallbackName;
  const requestId = response.headers.get('x-request-id') ?? undefined;
  const interrupted = (why?: string) =>
    new ApiError({
      status: response.status,
      code: EXPORT_INTERRUPTED,
      detail: why
        ? `The export stopped part-way; nothing was saved. ${why}`
        : 'The export was interrupted before it finished; nothing was saved. Try again.',
      requestId,
    });
  let blob: Blob;
  try {
    blob = await response.blob();
  } catch {
    throw interrupted();
  }
  if (!requestId) throw interrupted();
  // Missing (404 export_incomplete), unreachable or a different size: not known whole.
  const receipt = await fetchExportReceipt(requestId).catch(() => undefined);
  if (receipt?.bytes !== blob.size) throw interrupted(await incompleteReason(blob));
  saveBlob(blob, name);
}

const INCOMPLETE = /^INCOMPLETE: this file stops after [\d,]+ rows?\. (.+)$/;

/**
 * The reason a file gives in its last row when the BFF could not finish it (a walk of the card
 * service that failed part-way: "INCOMPLETE: this file stops after 107 rows. The card service
 * repeated a page. Export again for the whole file."), without its row count; else undefined.
 */
async function incompleteReason(blob: Blob): Promise<string | undefined> {
  const tail = await blob.slice(Math.max(0, blob.size - 4_096)).text();
  const lines = tail.split('\r\n');
  const last = lines.at(-1) === '' ? lines.at(-2) : lines.at(-1);
  const cell = last === undefined ? undefined : firstCell(last);
  return cell === undefined ? undefined : INCOMPLETE.exec(cell)?.[1];
}

/** A CSV line's first field (RFC 4180: quoted when it holds a quote, a comma or a line end). */
function firstCell(line: string): string {
  if (!line.startsWith('"')) return line.split(',')[0] ?? '';
  let out = '';
  for (let i = 1; i < line.length; i++) {
    const c = line[i];
    if (c === '"') {
      if (line[i + 1] !== '"') return out;
      i++;
    }
    out += c;
  }
  return out;
}

/**
 * What a finished export produced, by the export's `X-Request-Id`; 404 `export_incomplete`
 * when it did not finish (or is not this person's). Never cached: asked once per download.
 */
function fetchExportReceipt(requestId: string) {
  return api('transactions.exportReceipt', { params: { requestId } });
}
