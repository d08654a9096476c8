import { describe, expect, it } from 'vitest';
import {
  GPS_TEXT,
  heicWithGps,
  jpegWithGps,
  pdfReceipt,
  pngWithGps,
  webpWithGps,
} from '../../test/receipt-files';
import { inspectReceipt, ReceiptRefusedError, safeFileName } from './receipt-file';

const has = (bytes: Buffer, text: string) => bytes.includes(Buffer.from(text, 'latin1'));

async function refusal(bytes: Buffer) {
  const error = await inspectReceipt(bytes).then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof ReceiptRefusedError)) throw new Error(`accepted: ${error}`);
  return error.reason;
}

describe('a receipt’s bytes', () => {
  it('JPEG: the type from the bytes; EXIF, XMP and comments gone, the orientation and the picture kept', async () => {
    const scan = Buffer.from('the-compressed-picture');
    const input = jpegWithGps(6, scan);
    expect(has(input, GPS_TEXT)).toBe(true);
    const { mediaType, bytes } = await inspectReceipt(input);
    expect(mediaType).toBe('image/jpeg');
    expect(has(bytes, 'GPS')).toBe(false);
    expect(has(bytes, 'xmpmeta')).toBe(false);
    expect(has(bytes, 'JFIF')).toBe(true);
    expect(bytes.subarray(-scan.length - 2, -2)).toEqual(scan);
    // The orientation survives in a minimal EXIF: Orientation (0x0112) = 6.
    const exifAt = bytes.indexOf(Buffer.from('Exif\0\0', 'latin1'));
    expect(exifAt).toBeGreaterThan(0);
    expect(bytes.readUInt16BE(exifAt + 6 + 10)).toBe(0x0112);
    expect(bytes.readUInt16BE(exifAt + 6 + 18)).toBe(6);
    // Upright pictures need no EXIF at all.
    expect(has((await inspectReceipt(jpegWithGps(1))).bytes, 'Exif')).toBe(false);
  });

  it('PNG, WebP and HEIC lose their metadata and keep their picture', async () => {
    const png = await inspectReceipt(pngWithGps());
    expect(png.mediaType).toBe('image/png');
    expect(has(png.bytes, 'GPS')).toBe(false);
    expect(has(png.bytes, 'IDAT')).toBe(true);
    expect(has(png.bytes, 'IEND')).toBe(true);

    const webp = await inspectReceipt(webpWithGps());
    expect(webp.mediaType).toBe('image/webp');
    expect(has(webp.bytes, 'GPS')).toBe(false);
    expect(has(webp.bytes, 'vp8-frame-bytes')).toBe(true);
    expect(webp.bytes.readUInt32LE(4)).toBe(webp.bytes.length - 8);
    expect((webp.bytes[20] as number) & 0b1100).toBe(0);

    const input = heicWithGps();
    const heic = await inspectReceipt(input);
    expect(heic.mediaType).toBe('image/heic');
    expect(has(heic.bytes, 'GPS')).toBe(false);
    expect(heic.bytes.length).toBe(input.length);
    expect(has(heic.bytes, 'hevc-image-bytes')).toBe(true);
  });

  it('PDF is taken as it is', async () => {
    const { mediaType, bytes } = await inspectReceipt(pdfReceipt());
    expect(mediaType).toBe('application/pdf');
    expect(bytes).toEqual(pdfReceipt());
  });

  it('refuses what is not a receipt whatever it is called, and damaged images', async () => {
    expect(await refusal(Buffer.from('<!doctype html><script>alert(1)</script>'))).toBe('type');
    expect(
      await refusal(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>')),
    ).toBe('type');
    expect(await refusal(Buffer.from('GIF89a\x01\x00\x01\x00', 'latin1'))).toBe('type');
    expect(await refusal(Buffer.alloc(0))).toBe('type');
    expect(await refusal(Buffer.from('PK\x03\x04zip', 'latin1'))).toBe('type');
    const jpeg = jpegWithGps();
    expect(await refusal(jpeg.subarray(0, 30))).toBe('damaged');
    const png = pngWithGps();
    expect(await refusal(png.subarray(0, 40))).toBe('damaged');
  });
});

describe('a receipt’s file name', () => {
  it('keeps its last path part and visible text, and takes the extension the bytes decided', () => {
    expect(safeFileName('Dinner at Luigi’s.jpeg', 'image/jpeg')).toBe('Dinner at Luigi’s.jpg');
    expect(safeFileName('../../etc/passwd', 'application/pdf')).toBe('passwd.pdf');
    expect(safeFileName('C:\\Users\\ana\\invoice.png', 'image/png')).toBe('invoice.png');
    expect(safeFileName('invoice\u202Egnp.exe', 'image/png')).toBe('invoicegnp.png');
    expect(safeFileName('in\u0000voice.html', 'image/png')).toBe('invoice.png');
    expect(safeFileName('..', 'image/png')).toBe('receipt.png');
    expect(safeFileName(undefined, 'image/webp')).toBe('receipt.webp');
    expect(safeFileName('', 'image/webp')).toBe('receipt.webp');
    expect(safeFileName('a'.repeat(300), 'image/png')).toBe(`${'a'.repeat(240)}.png`);
    const scan = `${'Hotel Lumen, 3 nights, '.repeat(8)}final_scanned_copy_v2.pdf`;
    expect(scan.length).toBeGreaterThan(200);
    expect(safeFileName(scan, 'application/pdf')).toBe(scan);
    expect(safeFileName('re"ceipt<1>.pdf', 'application/pdf')).toBe('receipt1.pdf');
    // White space collapses and trims, leading dots go, only the last extension is replaced.
    expect(safeFileName('  ..hidden.pdf', 'application/pdf')).toBe('hidden.pdf');
    expect(safeFileName('...dots.png', 'image/png')).toBe('dots.png');
    expect(safeFileName('a    b .pdf', 'application/pdf')).toBe('a b.pdf');
    expect(safeFileName('report.2026.11.pdf', 'application/pdf')).toBe('report.2026.11.pdf');
  });
});

describe('ids of receipts, categories and rules', () => {
  it('never read as a card number where they travel (a path)', async () => {
    const { newId } = await import('./notes-store');
    const { holdsCardNumber } = await import('../../platform/security/card-number-ids');
    const ids = Array.from({ length: 20_000 }, newId);
    expect(ids.filter(holdsCardNumber)).toEqual([]);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
