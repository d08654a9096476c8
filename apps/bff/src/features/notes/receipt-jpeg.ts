import { checkPixels, damaged } from './receipt-refused';

// JPEG, by an allow-list of segments read up to the end of image (EOI): the frame, tables and
// scans that decode the picture are kept (SOFn, DHT, DAC, DQT, DRI, DNL, DHP, EXP, SOS and each
// scan's data, progressive ones included), with JFIF's header (its thumbnail dropped), an ICC
// colour profile and Adobe's colour transform, which decide how the picture looks. The EXIF
// orientation, the one thing in EXIF that does, is written back as a minimal EXIF. Everything
// else goes wherever it sits, between scans too: EXIF and XMP (APP1), every other APPn (MPF's
// extra pictures, maker notes), comments, and whatever follows EOI.

const SOI = Buffer.from([0xff, 0xd8]);
const EOI = Buffer.from([0xff, 0xd9]);

/** The markers that carry no length: TEM, the restarts and SOI (EOI ends the file). */
const bare = (marker: number) => marker < 0x02 || (marker >= 0xd0 && marker <= 0xd8);
/** SOF0–SOF15 (C4 is DHT, C8 reserved, CC is DAC). */
const isFrame = (marker: number) =>
  marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
/** Frames, DHT, DAC, DQT, DNL, DRI, DHP, EXP and SOS: what a decoder needs. */
const decodes = (marker: number) =>
  isFrame(marker) || marker === 0xc4 || marker === 0xcc || (marker >= 0xda && marker <= 0xdf);

const startsWith = (payload: Buffer, tag: string) => payload.indexOf(tag) === 0;

/**
 * The kept segments of a JPEG (file-type saw its FF D8 FF). A segment's bounds are not checked
 * one by one: a length past the end leaves the next read where no marker is, or past the end of
 * the buffer, and either is a damaged file.
 */
export function stripJpeg(input: Buffer): Buffer {
  const kept: Buffer[] = [SOI];
  let orientation: number | undefined;
  let scanned = false;
  let at = 2;
  for (;;) {
    if (input[at] !== 0xff) damaged();
    const marker = input[at + 1] as number;
    if (marker === 0xff) {
      at++; // fill byte
      continue;
    }
    if (marker === 0xd9) break;
    if (bare(marker)) damaged();
    // A length under 2 points back into the length itself, where no marker is.
    const end = at + 2 + input.readUInt16BE(at + 2);
    const segment = input.subarray(at, end);
    const payload = input.subarray(at + 4, end);
    if (isFrame(marker)) checkPixels(payload.readUInt16BE(3), payload.readUInt16BE(1));
    if (marker === 0xe1) orientation ??= exifOrientation(payload);
    const keep = keptSegment(marker, segment, payload);
    if (keep) kept.push(keep);
    at = end;
    if (marker === 0xda) {
      const data = scanEnd(input, at);
      kept.push(input.subarray(at, data));
      at = data;
      scanned = true;
    }
  }
  // No scan, no picture.
  if (!scanned) damaged();
  if (orientation !== undefined) kept.splice(1, 0, orientationExif(orientation));
  kept.push(EOI);
  return Buffer.concat(kept);
}

function keptSegment(marker: number, segment: Buffer, payload: Buffer): Buffer | undefined {
  if (decodes(marker)) return segment;
  if (marker === 0xe0 && startsWith(payload, 'JFIF\0') && payload.length >= 14) {
    // Version, units and density; thumbnail width and height 0, and no thumbnail.
    const header = Buffer.from(segment.subarray(0, 18));
    header.writeUInt16BE(16, 2);
    header.writeUInt16BE(0, 16);
    return header;
  }
  if (marker === 0xe2 && startsWith(payload, 'ICC_PROFILE\0')) return segment;
  if (marker === 0xee && startsWith(payload, 'Adobe')) return segment;
  return undefined;
}

/**
 * Where a scan's entropy-coded data ends: its first marker other than a stuffed 0xFF00, a
 * restart (RST0–7) or fill bytes. A file that ends first has no end of image: damaged (a last
 * 0xFF has no byte after it, and `undefined` is no marker).
 */
function scanEnd(input: Buffer, from: number): number {
  for (let at = input.indexOf(0xff, from); at !== -1; at = input.indexOf(0xff, at + 1)) {
    const next = input[at + 1] as number;
    if (next !== 0x00 && next !== 0xff && (next < 0xd0 || next > 0xd7)) return at;
  }
  return damaged();
}

/**
 * The Orientation (0x0112) of an APP1 EXIF payload (`Exif\0\0` and a TIFF header), unless the
 * picture is upright (1) or the EXIF broken: a read past its end finds no orientation.
 */
function exifOrientation(payload: Buffer): number | undefined {
  if (!startsWith(payload, 'Exif\0\0')) return undefined;
  const tiff = payload.subarray(6);
  const little = tiff[0] === 0x49; // 'II': Intel's byte order, else 'MM'
  const u16 = (o: number) => (little ? tiff.readUInt16LE(o) : tiff.readUInt16BE(o));
  try {
    const ifd = little ? tiff.readUInt32LE(4) : tiff.readUInt32BE(4);
    const entries = u16(ifd);
    for (let i = 0; i < entries; i++) {
      const entry = ifd + 2 + i * 12;
      if (u16(entry) === 0x0112) {
        const value = u16(entry + 8);
        return value >= 2 && value <= 8 ? value : undefined;
      }
    }
  } catch {
    // A broken EXIF: the picture is shown as stored.
  }
  return undefined;
}

/** An APP1 segment holding an EXIF with only the Orientation tag (big-endian TIFF). */
function orientationExif(orientation: number): Buffer {
  const tiff = Buffer.alloc(26);
  tiff.write('MM', 0);
  tiff.writeUInt16BE(42, 2);
  tiff.writeUInt32BE(8, 4); // IFD0 right after the header
  tiff.writeUInt16BE(1, 8); // one entry
  tiff.writeUInt16BE(0x0112, 10); // Orientation
  tiff.writeUInt16BE(3, 12); // SHORT
  tiff.writeUInt32BE(1, 14); // one value
  tiff.writeUInt16BE(orientation, 18);
  tiff.writeUInt32BE(0, 22); // no next IFD
  const payload = Buffer.concat([Buffer.from('Exif\0\0'), tiff]);
  const head = Buffer.from([0xff, 0xe1, 0, 0]);
  head.writeUInt16BE(payload.length + 2, 2);
  return Buffer.concat([head, payload]);
}
