// What an uploaded receipt is, decided by its bytes (file-type reads the signatures), never by
// its name or the request's Content-Type; its picture metadata (EXIF with its GPS position, XMP,
// IPTC, comments, private chunks, whatever follows the picture's end) removed by an allow-list
// of what decodes the picture, without decoding or re-encoding it (receipt-jpeg.ts,
// receipt-png.ts, receipt-webp.ts; HEIC/HEIF has its Exif and XMP items zeroed in place,
// receipt-heif.ts); a picture declaring more than RECEIPT_MAX_PIXELS refused; a PDF that can
// act or carry files refused (receipt-pdf.ts).
import { create as contentDisposition } from 'content-disposition';
import type { Response } from 'express';
import { fileTypeFromBuffer } from 'file-type';
import { stripHeif } from './receipt-heif';
import { stripJpeg } from './receipt-jpeg';
import { checkPdf } from './receipt-pdf';
import { stripPng } from './receipt-png';
import { ReceiptRefusedError } from './receipt-refused';
import { stripWebp } from './receipt-webp';

export { RECEIPT_MAX_PIXELS, ReceiptRefusedError } from './receipt-refused';

/** The receipts Card Console takes, by media type, and the extension their downloads get. */
export const RECEIPT_TYPES = {
  'image/jpeg': 'jpg',
  'image/png': 'png',
  'image/webp': 'webp',
  'image/heic': 'heic',
  'image/heif': 'heif',
  'application/pdf': 'pdf',
} as const;
export type ReceiptType = keyof typeof RECEIPT_TYPES;

const cleaners: Record<ReceiptType, (bytes: Buffer) => Buffer> = {
  'image/jpeg': stripJpeg,
  'image/png': stripPng,
  'image/webp': stripWebp,
  'image/heic': stripHeif,
  'image/heif': stripHeif,
  'application/pdf': (bytes) => {
    checkPdf(bytes);
    return bytes;
  },
};

/**
 * The file's type from its bytes, and its bytes as they are kept; rejects only with a
 * ReceiptRefusedError.
 */
export async function inspectReceipt(
  bytes: Buffer,
): Promise<{ mediaType: ReceiptType; bytes: Buffer }> {
  // Bytes file-type cannot read (it has thrown on crafted ones) are no receipt either.
  const found = await fileTypeFromBuffer(bytes).catch(() => undefined);
  const mediaType = found?.mime as ReceiptType | undefined;
  if (!mediaType || !Object.hasOwn(RECEIPT_TYPES, mediaType)) {
    throw new ReceiptRefusedError('type');
  }
  try {
    return { mediaType, bytes: cleaners[mediaType](bytes) };
  } catch (error) {
    if (error instanceof ReceiptRefusedError) throw error;
    // A read past the end of a truncated or lying file.
    throw new ReceiptRefusedError('damaged');
  }
}

/**
 * A file name as people see it and downloads are named: its last path part, without control,
 * format (bidi, zero-width) or path characters, at most 240 characters (what a file system
 * keeps: a longer one cannot have been a file's name; 120 cut a review's 130-character scans'
 * names, the part that told them apart), with the extension the bytes decided; "receipt" when
 * nothing is left.
 */
export function safeFileName(raw: string | undefined, mediaType: ReceiptType): string {
  const ext = RECEIPT_TYPES[mediaType];
  // split gives at least one part.
  const last = (raw ?? '').split(/[/\\]/).pop() as string;
  const clean = last
    .normalize('NFC')
    .replace(/[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}"*:<>?|]/gu, '')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^\.+/, '');
  const stem =
    clean
      .replace(/\.[^.]*$/, '')
      .slice(0, 240)
      .trim() || 'receipt';
  return `${stem}.${ext}`;
}

/**
 * Writes a kept receipt (a transaction's or an inbox item's) back to the browser: a picture shown
 * inline at most, a PDF only as a download, sandboxed with nothing to run, never sniffed as another
 * type, never cached.
 */
export function sendReceipt(
  res: Response,
  file: { mediaType: string; fileName: string; content: Buffer },
): void {
  const image = file.mediaType.startsWith('image/') && Object.hasOwn(RECEIPT_TYPES, file.mediaType);
  res.status(200).set({
    'Content-Type': file.mediaType,
    'Content-Length': String(file.content.length),
    'Content-Disposition': contentDisposition(file.fileName, {
      type: image ? 'inline' : 'attachment',
    }),
    'Content-Security-Policy': "default-src 'none'; img-src 'self'; sandbox",
    'X-Content-Type-Options': 'nosniff',
    'Cross-Origin-Resource-Policy': 'same-origin',
    'Cache-Control': 'private, no-store',
  });
  res.end(file.content);
}
