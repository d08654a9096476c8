// The receipts of one ZIP: counted and sized before any byte (a ZIP past the caps is refused),
// listed once when it starts, and read one at a time as the download asks for them.
import { AppError } from '../../core/app-error';
import type { ZipFile } from './stream-zip';

/** What one receipts ZIP may hold (`RECEIPTS_ZIP_MAX_FILES`, `RECEIPTS_ZIP_MAX_MB`). */
export interface ReceiptsZipCaps {
  maxFiles: number;
  maxBytes: number;
}

export const DEFAULT_RECEIPTS_ZIP_CAPS: ReceiptsZipCaps = {
  maxFiles: 500,
  maxBytes: 1024 * 1024 * 1024,
};

/** A receipt of the ZIP as it stood when the ZIP started: which one, its name in it, its size. */
export interface PlannedReceipt {
  transactionId: string;
  receiptId: string;
  name: string;
  at: Date;
  byteSize: number;
}

/** 422 `receipts_zip_too_large` when `totals` exceed a cap: the person narrows the filter. */
export function checkReceiptsZipCaps(
  totals: { files: number; bytes: number },
  caps: ReceiptsZipCaps,
): void {
  if (totals.files <= caps.maxFiles && totals.bytes <= caps.maxBytes) return;
  throw new AppError(
    422,
    'receipts_zip_too_large',
    `These transactions have ${plural(totals.files, 'receipt')} (${size(totals.bytes)}); one ZIP ` +
      `holds at most ${plural(caps.maxFiles, 'receipt')} and ${size(caps.maxBytes)}. Narrow the ` +
      'period or the filters, and download the rest in another ZIP.',
    { extensions: { ...totals, maxFiles: caps.maxFiles, maxBytes: caps.maxBytes } },
  );
}

/** The sum of what was listed, for the same check once the list is made. */
export function totalsOf(planned: readonly PlannedReceipt[]): { files: number; bytes: number } {
  return { files: planned.length, bytes: planned.reduce((sum, p) => sum + p.byteSize, 0) };
}

/**
 * The listed receipts' bytes, one at a time, each read only when the ZIP asks for it. A receipt
 * removed since the list was made is left out; none added since is in it.
 */
export async function* plannedFiles(
  planned: readonly PlannedReceipt[],
  read: (p: PlannedReceipt) => Promise<{ content: Buffer } | undefined>,
  signal: AbortSignal,
): AsyncGenerator<ZipFile> {
  for (const p of planned) {
    if (signal.aborted) return;
    const file = await read(p);
    if (file) yield { name: p.name, content: file.content, at: p.at };
  }
}

const plural = (n: number, word: string) =>
  `${n.toLocaleString('en-US')} ${word}${n === 1 ? '' : 's'}`;

/** Bytes as a person reads them: kilobytes (rounded up), megabytes, gigabytes from 1,024 MB. */
function size(bytes: number): string {
  const kb = bytes / 1024;
  if (kb < 1024) return `${Math.ceil(kb).toLocaleString('en-US')} KB`;
  const [value, unit] = kb < 1024 * 1024 ? [kb / 1024, 'MB'] : [kb / 1024 / 1024, 'GB'];
  return `${Number(value.toFixed(1)).toLocaleString('en-US')} ${unit}`;
}
