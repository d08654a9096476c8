// What an uploaded receipt is, decided by its bytes (file-type reads the signatures), never by
// its name or the request's Content-Type; and the image's metadata (EXIF with its GPS position,
// XMP, IPTC, comments) removed from the container before it is stored. The pixels are not
// decoded or re-encoded: JPEG keeps only its orientation, PNG and WebP lose their metadata
// chunks, HEIC/HEIF has its Exif and XMP items' bytes overwritten with zeros in place.
import { fileTypeFromBuffer } from 'file-type';

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

export class ReceiptRefusedError extends Error {
  constructor(readonly reason: 'type' | 'damaged') {
    super(reason === 'type' ? 'not a receipt type' : 'damaged file');
    this.name = 'ReceiptRefusedError';
  }
}

/** The file's type from its bytes, and its bytes without metadata. */
export async function inspectReceipt(
  bytes: Buffer,
): Promise<{ mediaType: ReceiptType; bytes: Buffer }> {
  const found = await fileTypeFromBuffer(bytes);
  const mediaType = found?.mime as ReceiptType | undefined;
  if (!mediaType || !Object.hasOwn(RECEIPT_TYPES, mediaType)) {
    throw new ReceiptRefusedError('type');
  }
  try {
    switch (mediaType) {
      case 'image/jpeg':
        return { mediaType, bytes: stripJpeg(bytes) };
      case 'image/png':
        return { mediaType, bytes: stripPng(bytes) };
      case 'image/webp':
        return { mediaType, bytes: stripWebp(bytes) };
      case 'image/heic':
      case 'image/heif':
        return { mediaType, bytes: stripHeif(bytes) };
      default:
        return { mediaType, bytes };
    }
  } catch (error) {
    if (error instanceof ReceiptRefusedError) throw error;
    throw new ReceiptRefusedError('damaged');
  }
}

const damaged = (): never => {
  throw new ReceiptRefusedError('damaged');
};

// JPEG: markers up to the start of scan. APP0 (JFIF), APP2 (ICC colour profile) and APP14
// (Adobe colour transform) are kept, as they decide how the picture looks; APP1 (EXIF, XMP),
// the other APPn and COM (comments) go. The EXIF orientation, the one thing in it that decides
// how the picture looks, is written back as a minimal EXIF.
function stripJpeg(input: Buffer): Buffer {
  if (input[0] !== 0xff || input[1] !== 0xd8) damaged();
  const kept: Buffer[] = [input.subarray(0, 2)];
  let orientation: number | undefined;
  let at = 2;
  for (;;) {
    if (at + 4 > input.length || input[at] !== 0xff) damaged();
    const marker = input[at + 1] as number;
    if (marker === 0xff) {
      at++; // fill byte
      continue;
    }
    if (marker === 0xda || marker === 0xd9) break; // start of scan, or end of image
    const length = input.readUInt16BE(at + 2);
    const end = at + 2 + length;
    if (length < 2 || end > input.length) damaged();
    const isApp = marker >= 0xe0 && marker <= 0xef;
    if (marker === 0xe1) orientation ??= exifOrientation(input.subarray(at + 4, end));
    const keep =
      !(isApp || marker === 0xfe) || marker === 0xe0 || marker === 0xe2 || marker === 0xee;
    if (keep) kept.push(input.subarray(at, end));
    at = end;
  }
  if (orientation !== undefined && orientation !== 1) {
    kept.splice(1, 0, orientationExif(orientation));
  }
  kept.push(input.subarray(at));
  return Buffer.concat(kept);
}

/** The Orientation (0x0112) of an APP1 EXIF payload (`Exif\0\0` and a TIFF header), if any. */
function exifOrientation(payload: Buffer): number | undefined {
  if (payload.subarray(0, 6).toString('latin1') !== 'Exif\0\0') return undefined;
  const tiff = payload.subarray(6);
  if (tiff.length < 8) return undefined;
  const little = tiff.toString('latin1', 0, 2) === 'II';
  const u16 = (o: number) => (little ? tiff.readUInt16LE(o) : tiff.readUInt16BE(o));
  const u32 = (o: number) => (little ? tiff.readUInt32LE(o) : tiff.readUInt32BE(o));
  const ifd = u32(4);
  if (ifd + 2 > tiff.length) return undefined;
  const entries = u16(ifd);
  for (let i = 0; i < entries; i++) {
    const entry = ifd + 2 + i * 12;
    if (entry + 12 > tiff.length) return undefined;
    if (u16(entry) === 0x0112) {
      const value = u16(entry + 8);
      return value >= 1 && value <= 8 ? value : undefined;
    }
  }
  return undefined;
}

/** An APP1 segment holding an EXIF with only the Orientation tag (big-endian TIFF). */
function orientationExif(orientation: number): Buffer {
  const tiff = Buffer.alloc(26);
  tiff.write('MM', 0, 'latin1');
  tiff.writeUInt16BE(42, 2);
  tiff.writeUInt32BE(8, 4); // IFD0 right after the header
  tiff.writeUInt16BE(1, 8); // one entry
  tiff.writeUInt16BE(0x0112, 10); // Orientation
  tiff.writeUInt16BE(3, 12); // SHORT
  tiff.writeUInt32BE(1, 14); // one value
  tiff.writeUInt16BE(orientation, 18);
  tiff.writeUInt32BE(0, 22); // no next IFD
  const payload = Buffer.concat([Buffer.from('Exif\0\0', 'latin1'), tiff]);
  const head = Buffer.from([0xff, 0xe1, 0, 0]);
  head.writeUInt16BE(payload.length + 2, 2);
  return Buffer.concat([head, payload]);
}

// PNG: chunks after the signature; the text, EXIF and time chunks go.
const PNG_METADATA = new Set(['eXIf', 'tEXt', 'zTXt', 'iTXt', 'tIME']);

function stripPng(input: Buffer): Buffer {
  const kept: Buffer[] = [input.subarray(0, 8)];
  let at = 8;
  while (at < input.length) {
    if (at + 12 > input.length) damaged();
    const length = input.readUInt32BE(at);
    const type = input.toString('latin1', at + 4, at + 8);
    const end = at + 12 + length;
    if (end > input.length) damaged();
    if (!PNG_METADATA.has(type)) kept.push(input.subarray(at, end));
    at = end;
    if (type === 'IEND') break;
  }
  return Buffer.concat(kept);
}

// WebP: RIFF chunks; EXIF and XMP go, and VP8X's flags stop announcing them.
function stripWebp(input: Buffer): Buffer {
  if (input.toString('latin1', 0, 4) !== 'RIFF' || input.toString('latin1', 8, 12) !== 'WEBP') {
    damaged();
  }
  const kept: Buffer[] = [];
  let at = 12;
  const end = Math.min(input.length, 8 + input.readUInt32LE(4));
  while (at + 8 <= end) {
    const type = input.toString('latin1', at, at + 4);
    const size = input.readUInt32LE(at + 4);
    const next = at + 8 + size + (size % 2);
    if (at + 8 + size > end) damaged();
    if (type === 'VP8X') {
      const chunk = Buffer.from(input.subarray(at, Math.min(next, end)));
      chunk[8] = (chunk[8] as number) & ~0b1100; // EXIF (bit 3) and XMP (bit 2) flags
      kept.push(chunk);
    } else if (type !== 'EXIF' && type !== 'XMP ') {
      kept.push(input.subarray(at, Math.min(next, end)));
    }
    at = next;
  }
  const body = Buffer.concat(kept);
  const head = Buffer.from('RIFF0000WEBP', 'latin1');
  head.writeUInt32LE(body.length + 4, 4);
  return Buffer.concat([head, body]);
}

// HEIC/HEIF (ISO base media file format): the `meta` box lists items (`iinf`) and where their
// bytes are (`iloc`). The Exif item and XMP (a `mime` item) have their bytes zeroed; the file's
// size and every offset stay as they were.
interface Box {
  type: string;
  start: number;
  /** Where the box's content starts (after size, type and any large size). */
  content: number;
  end: number;
}

function boxesIn(input: Buffer, from: number, to: number): Box[] {
  const boxes: Box[] = [];
  let at = from;
  while (at + 8 <= to) {
    let size = input.readUInt32BE(at);
    const type = input.toString('latin1', at + 4, at + 8);
    let content = at + 8;
    if (size === 1) {
      if (at + 16 > to) damaged();
      size = Number(input.readBigUInt64BE(at + 8));
      content = at + 16;
    } else if (size === 0) {
      size = to - at;
    }
    if (size < content - at || at + size > to) damaged();
    boxes.push({ type, start: at, content, end: at + size });
    at += size;
  }
  return boxes;
}

function stripHeif(input: Buffer): Buffer {
  const output = Buffer.from(input);
  const meta = boxesIn(input, 0, input.length).find((b) => b.type === 'meta');
  if (!meta) return output;
  // `meta` is a full box: version and flags before its children.
  const children = boxesIn(input, meta.content + 4, meta.end);
  const iinf = children.find((b) => b.type === 'iinf');
  const iloc = children.find((b) => b.type === 'iloc');
  if (!iinf || !iloc) return output;
  const hidden = metadataItems(input, iinf);
  if (hidden.size === 0) return output;
  for (const { offset, length } of itemExtents(input, iloc, hidden)) {
    if (offset + length > output.length) damaged();
    output.fill(0, offset, offset + length);
  }
  return output;
}

/** The ids of the Exif item and of XMP (`mime` items of type application/rdf+xml). */
function metadataItems(input: Buffer, iinf: Box): Set<number> {
  const version = input[iinf.content] as number;
  const countAt = iinf.content + 4;
  const entriesAt = countAt + (version === 0 ? 2 : 4);
  const ids = new Set<number>();
  for (const infe of boxesIn(input, entriesAt, iinf.end)) {
    if (infe.type !== 'infe') continue;
    const v = input[infe.content] as number;
    if (v < 2) continue;
    const idAt = infe.content + 4;
    const id = v === 2 ? input.readUInt16BE(idAt) : input.readUInt32BE(idAt);
    const typeAt = idAt + (v === 2 ? 2 : 4) + 2; // after item_ID and item_protection_index
    const itemType = input.toString('latin1', typeAt, typeAt + 4);
    if (itemType === 'Exif') ids.add(id);
    if (itemType === 'mime') {
      const rest = input.toString('latin1', typeAt + 4, infe.end);
      if (rest.includes('application/rdf+xml')) ids.add(id);
    }
  }
  return ids;
}

/** Where the bytes of `items` are: each extent's file offset and length (`iloc`, versions 0–2). */
function itemExtents(
  input: Buffer,
  iloc: Box,
  items: Set<number>,
): { offset: number; length: number }[] {
  const version = input[iloc.content] as number;
  let at = iloc.content + 4;
  const sizes = input.readUInt16BE(at);
  at += 2;
  const offsetSize = sizes >> 12;
  const lengthSize = (sizes >> 8) & 0xf;
  const baseOffsetSize = (sizes >> 4) & 0xf;
  const indexSize = version === 1 || version === 2 ? sizes & 0xf : 0;
  const read = (bytes: number) => {
    let value = 0;
    for (let i = 0; i < bytes; i++) value = value * 256 + (input[at + i] as number);
    at += bytes;
    return value;
  };
  const count = read(version < 2 ? 2 : 4);
  const extents: { offset: number; length: number }[] = [];
  for (let i = 0; i < count; i++) {
    if (at > iloc.end) damaged();
    const id = read(version < 2 ? 2 : 4);
    const method = version === 1 || version === 2 ? read(2) & 0xf : 0;
    read(2); // data_reference_index
    const base = read(baseOffsetSize);
    const extentCount = read(2);
    for (let e = 0; e < extentCount; e++) {
      if (indexSize > 0) read(indexSize);
      const offset = read(offsetSize);
      const length = read(lengthSize);
      // Construction method 0: offsets into the file (1 and 2 point inside other boxes or items).
      if (items.has(id) && method === 0) extents.push({ offset: base + offset, length });
    }
  }
  return extents;
}

/**
 * A file name as people see it and downloads are named: its last path part, without control,
 * format (bidi, zero-width) or path characters, at most 120 characters, with the extension
 * the bytes decided; "receipt" when nothing is left.
 */
export function safeFileName(raw: string | undefined, mediaType: ReceiptType): string {
  const ext = RECEIPT_TYPES[mediaType];
  const last = (raw ?? '').split(/[/\\]/).pop() ?? '';
  const clean = last
    .normalize('NFC')
    .replace(/[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}"*:<>?|]/gu, '')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^\.+/, '');
  const stem =
    clean
      .replace(/\.[^.]*$/, '')
      .slice(0, 120)
      .trim() || 'receipt';
  return `${stem}.${ext}`;
}
