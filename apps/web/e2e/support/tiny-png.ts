import { deflateSync } from 'node:zlib';

/** CRC-32 (ISO-HDLC) as PNG's chunks carry it. */
function crc32(bytes: Buffer): number {
  let c = 0xffffffff;
  for (const byte of bytes) {
    c ^= byte;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0xedb88320 : c >>> 1;
  }
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/**
 * A real PNG of `size`×`size` pixels (8-bit RGB, a diagonal gradient), made here: a receipt to
 * upload whose bytes a browser decodes, so its preview has a width.
 */
export function tinyPng(size = 8): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // truecolour; compression, filter and interlace stay 0
  const stride = 1 + size * 3;
  const pixels = Buffer.alloc(size * stride);
  for (let y = 0; y < size; y++) {
    pixels[y * stride] = 0; // no filter
    for (let x = 0; x < size; x++) {
      const at = y * stride + 1 + x * 3;
      pixels[at] = (x * 255) / (size - 1);
      pixels[at + 1] = (y * 255) / (size - 1);
      pixels[at + 2] = 160;
    }
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(pixels)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}
