// Receipts built byte by byte for tests: each image carries a GPS position in its metadata
// (EXIF, text chunks, XMP), so a test can tell it was removed and the picture kept.
import { deflateSync } from 'node:zlib';

export const GPS_TEXT = 'GPSLatitude 47.6062N GPSLongitude 122.3321W';

const u16 = (n: number) => {
  const b = Buffer.alloc(2);
  b.writeUInt16BE(n);
  return b;
};
const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
};

/** A JPEG-shaped file: JFIF, an EXIF with `orientation` and the GPS text, a comment, scan data. */
export function jpegWithGps(orientation = 6, scan = Buffer.from('scan-data-0123456789')): Buffer {
  const segment = (marker: number, payload: Buffer) =>
    Buffer.concat([Buffer.from([0xff, marker]), u16(payload.length + 2), payload]);
  const tiff = Buffer.concat([
    Buffer.from('MM'),
    u16(42),
    u32(8),
    u16(2),
    // Orientation
    u16(0x0112),
    u16(3),
    u32(1),
    u16(orientation),
    u16(0),
    // GPSInfo pointer (its content is only text here: enough to be found)
    u16(0x8825),
    u16(4),
    u32(1),
    u32(38),
    u32(0),
    Buffer.from(GPS_TEXT),
  ]);
  return Buffer.concat([
    Buffer.from([0xff, 0xd8]),
    segment(0xe0, Buffer.from('JFIF\0\x01\x02\0\0\x01\0\x01\0\0', 'latin1')),
    segment(0xe1, Buffer.concat([Buffer.from('Exif\0\0', 'latin1'), tiff])),
    segment(0xe1, Buffer.from(`http://ns.adobe.com/xap/1.0/\0<x:xmpmeta>${GPS_TEXT}</x:xmpmeta>`)),
    segment(0xfe, Buffer.from(`taken at ${GPS_TEXT}`)),
    segment(0xdb, Buffer.alloc(65, 1)),
    Buffer.from([0xff, 0xda]),
    u16(8),
    Buffer.from([1, 1, 0, 0, 63, 0]),
    scan,
    Buffer.from([0xff, 0xd9]),
  ]);
}

function pngChunk(type: string, data: Buffer): Buffer {
  // The CRC is not checked by the stripper; a real one keeps viewers happy.
  return Buffer.concat([u32(data.length), Buffer.from(type, 'latin1'), data, u32(0)]);
}

/** A 1×1 PNG with a text chunk and an eXIf chunk holding the GPS text. */
export function pngWithGps(): Buffer {
  const ihdr = Buffer.concat([u32(1), u32(1), Buffer.from([8, 2, 0, 0, 0])]);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', ihdr),
    pngChunk('tEXt', Buffer.from(`Comment\0${GPS_TEXT}`, 'latin1')),
    pngChunk('eXIf', Buffer.from(`MM\0*${GPS_TEXT}`, 'latin1')),
    pngChunk('IDAT', deflateSync(Buffer.from([0, 255, 0, 0]))),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

function riffChunk(type: string, data: Buffer): Buffer {
  const size = Buffer.alloc(4);
  size.writeUInt32LE(data.length);
  return Buffer.concat([
    Buffer.from(type, 'latin1'),
    size,
    data,
    data.length % 2 ? Buffer.alloc(1) : Buffer.alloc(0),
  ]);
}

/** An extended WebP whose VP8X announces EXIF and XMP, both holding the GPS text. */
export function webpWithGps(): Buffer {
  const vp8x = Buffer.alloc(10);
  vp8x[0] = 0b1100; // EXIF and XMP present
  const body = Buffer.concat([
    Buffer.from('WEBP', 'latin1'),
    riffChunk('VP8X', vp8x),
    riffChunk('VP8 ', Buffer.from('vp8-frame-bytes')),
    riffChunk('EXIF', Buffer.from(`MM\0*${GPS_TEXT}`, 'latin1')),
    riffChunk('XMP ', Buffer.from(`<x:xmpmeta>${GPS_TEXT}</x:xmpmeta>`)),
  ]);
  const size = Buffer.alloc(4);
  size.writeUInt32LE(body.length);
  return Buffer.concat([Buffer.from('RIFF', 'latin1'), size, body]);
}

function box(type: string, ...parts: Buffer[]): Buffer {
  const content = Buffer.concat(parts);
  return Buffer.concat([u32(content.length + 8), Buffer.from(type, 'latin1'), content]);
}
const fullBox = (type: string, version: number, ...parts: Buffer[]) =>
  box(type, Buffer.from([version, 0, 0, 0]), ...parts);

/** A HEIC: an image item and an Exif item (the GPS text) whose bytes are in `mdat`. */
export function heicWithGps(): Buffer {
  const exif = Buffer.from(`\0\0\0\0MM\0*${GPS_TEXT}`, 'latin1');
  const image = Buffer.from('hevc-image-bytes');
  const infe = (id: number, type: string) =>
    fullBox('infe', 2, u16(id), u16(0), Buffer.from(type, 'latin1'), Buffer.from('\0'));
  const ftyp = box(
    'ftyp',
    Buffer.from('heic', 'latin1'),
    u32(0),
    Buffer.from('mif1heic', 'latin1'),
  );
  const build = (mdatStart: number) => {
    // iloc version 0: offset and length 4 bytes, no base offset.
    const iloc = fullBox(
      'iloc',
      0,
      u16(0x4400),
      u16(2),
      u16(1),
      u16(0),
      u16(1),
      u32(mdatStart + 8),
      u32(image.length),
      u16(2),
      u16(0),
      u16(1),
      u32(mdatStart + 8 + image.length),
      u32(exif.length),
    );
    const meta = fullBox(
      'meta',
      0,
      fullBox('hdlr', 0, u32(0), Buffer.from('pict', 'latin1'), Buffer.alloc(13)),
      fullBox('iinf', 0, u16(2), infe(1, 'hvc1'), infe(2, 'Exif')),
      iloc,
    );
    return Buffer.concat([ftyp, meta]);
  };
  const head = build(0);
  const withOffsets = build(head.length);
  return Buffer.concat([withOffsets, box('mdat', image, exif)]);
}

/**
 * A plain PDF receipt; with `tag`, one whose bytes differ from every other tag's (a comment line),
 * since a transaction keeps one receipt of the same bytes.
 */
export const pdfReceipt = (tag?: string | number) =>
  Buffer.from(
    `%PDF-1.7\n${tag === undefined ? '' : `% receipt ${tag}\n`}1 0 obj\n<< /Type /Catalog >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n`,
  );
