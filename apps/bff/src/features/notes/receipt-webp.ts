import { checkPixels, damaged } from './receipt-refused';

// WebP, by an allow-list of RIFF chunks: the header (VP8X, its EXIF and XMP flags cleared), the
// picture (VP8, VP8L, ALPH, and ANIM/ANMF for an animation) and the ICC profile. EXIF, XMP and
// any other chunk go, and so does whatever follows the RIFF's declared end.
const KEPT = new Set(['VP8 ', 'VP8L', 'ALPH', 'ANIM', 'ANMF', 'ICCP']);

/** The kept chunks of a WebP (file-type saw `RIFF`, a size and `WEBP`). */
export function stripWebp(input: Buffer): Buffer {
  checkPixels(...declaredSize(input, 12));
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
    } else if (KEPT.has(type)) {
      kept.push(input.subarray(at, Math.min(next, end)));
    }
    at = next;
  }
  const body = Buffer.concat(kept);
  const head = Buffer.from('RIFF0000WEBP');
  head.writeUInt32LE(body.length + 4, 4);
  return Buffer.concat([head, body]);
}

/**
 * The width and height the first chunk declares: VP8X's canvas (24 bits each, less one), a
 * lossy frame's header (after its start code 9D 01 2A) or a lossless one's (after 0x2F, 14 bits
 * each, less one). Any other first chunk is no WebP picture.
 */
function declaredSize(input: Buffer, at: number): [number, number] {
  const data = at + 8;
  switch (input.toString('latin1', at, at + 4)) {
    case 'VP8X':
      return [input.readUIntLE(data + 4, 3) + 1, input.readUIntLE(data + 7, 3) + 1];
    case 'VP8 ':
      if (input.readUIntBE(data + 3, 3) !== 0x9d012a) damaged();
      return [input.readUInt16LE(data + 6) & 0x3fff, input.readUInt16LE(data + 8) & 0x3fff];
    case 'VP8L': {
      if (input[data] !== 0x2f) damaged();
      const bits = input.readUInt32LE(data + 1);
      return [(bits & 0x3fff) + 1, ((bits >>> 14) & 0x3fff) + 1];
    }
    default:
      return damaged();
  }
}
