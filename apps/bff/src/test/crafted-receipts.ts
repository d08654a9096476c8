// Receipts built byte by byte the way an attacker (or an odd camera) would: data after a
// picture's end, metadata between scans or in private chunks, headers declaring huge pictures,
// PDFs that act when opened. Each carries SECRET where it should not survive.
import { deflateSync } from 'node:zlib';

export const SECRET = 'GPS 47.6062N 122.3321W by ana@example.com';

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
const latin1 = (text: string) => Buffer.from(text, 'latin1');

// --- JPEG -------------------------------------------------------------------------------------

/** One marker segment: FF, marker, length (payload + 2), payload. */
export const segment = (marker: number, payload: Buffer | string) => {
  const bytes = typeof payload === 'string' ? latin1(payload) : payload;
  return Buffer.concat([Buffer.from([0xff, marker]), u16(bytes.length + 2), bytes]);
};
/** A frame header (SOF0 unless told) for a `width` × `height` picture with one component. */
export const frame = (width: number, height: number, marker = 0xc0) =>
  segment(
    marker,
    Buffer.concat([Buffer.from([8]), u16(height), u16(width), Buffer.from([1, 1, 0x11, 0])]),
  );
export const jfif = (thumbnail = Buffer.alloc(0), size = [0, 0]) =>
  segment(
    0xe0,
    Buffer.concat([latin1('JFIF\0\x01\x02\0\0\x01\0\x01'), Buffer.from(size), thumbnail]),
  );
export const quantTable = () => segment(0xdb, Buffer.alloc(65, 1));
export const huffmanTable = () =>
  segment(0xc4, Buffer.concat([Buffer.from([0]), Buffer.alloc(16)]));
/** A start of scan and its entropy-coded data. */
export const scan = (data: Buffer | string) =>
  Buffer.concat([
    segment(0xda, Buffer.from([1, 1, 0, 0, 63, 0])),
    typeof data === 'string' ? latin1(data) : data,
  ]);
export const SOI = Buffer.from([0xff, 0xd8]);
export const EOI = Buffer.from([0xff, 0xd9]);
export const jpeg = (...parts: Buffer[]) => Buffer.concat([SOI, ...parts]);

// --- PNG --------------------------------------------------------------------------------------

export function pngChunk(type: string, data: Buffer | string = Buffer.alloc(0)): Buffer {
  const bytes = typeof data === 'string' ? latin1(data) : data;
  return Buffer.concat([u32(bytes.length), latin1(type), bytes, u32(0)]);
}
export const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
export const ihdr = (width = 1, height = 1) =>
  pngChunk('IHDR', Buffer.concat([u32(width), u32(height), Buffer.from([8, 2, 0, 0, 0])]));
export const idat = () => pngChunk('IDAT', deflateSync(Buffer.from([0, 255, 0, 0])));
/** A PNG: the signature, IHDR (1×1 unless told), `middle`, IDAT, IEND and `after`. */
export function png(
  middle: Buffer[] = [],
  options: { width?: number; height?: number; after?: Buffer } = {},
): Buffer {
  return Buffer.concat([
    PNG_SIGNATURE,
    ihdr(options.width, options.height),
    ...middle,
    idat(),
    pngChunk('IEND'),
    options.after ?? Buffer.alloc(0),
  ]);
}

// --- WebP -------------------------------------------------------------------------------------

export function riffChunk(type: string, data: Buffer | string): Buffer {
  const bytes = typeof data === 'string' ? latin1(data) : data;
  const size = Buffer.alloc(4);
  size.writeUInt32LE(bytes.length);
  return Buffer.concat([
    latin1(type),
    size,
    bytes,
    bytes.length % 2 ? Buffer.alloc(1) : Buffer.alloc(0),
  ]);
}
/** A WebP of `chunks`, and `after` past the RIFF's declared end. */
export function webp(chunks: Buffer[], after = Buffer.alloc(0)): Buffer {
  const body = Buffer.concat([latin1('WEBP'), ...chunks]);
  const size = Buffer.alloc(4);
  size.writeUInt32LE(body.length);
  return Buffer.concat([latin1('RIFF'), size, body, after]);
}
/** VP8X announcing a `width` × `height` canvas. */
export function vp8x(width: number, height: number): Buffer {
  const data = Buffer.alloc(10);
  data.writeUIntLE(width - 1, 4, 3);
  data.writeUIntLE(height - 1, 7, 3);
  return riffChunk('VP8X', data);
}
/** A lossy frame's header (key frame, start code) for `width` × `height`, then `rest`. */
export function vp8(width: number, height: number, rest = 'vp8-frame-bytes'): Buffer {
  const data = Buffer.concat([
    Buffer.from([0x10, 0x02, 0x00, 0x9d, 0x01, 0x2a]),
    Buffer.alloc(4),
    latin1(rest),
  ]);
  data.writeUInt16LE(width, 6);
  data.writeUInt16LE(height, 8);
  return riffChunk('VP8 ', data);
}
/** A lossless frame's header for `width` × `height`. */
export function vp8l(width: number, height: number): Buffer {
  const data = Buffer.alloc(9);
  data[0] = 0x2f;
  data.writeUInt32LE(((width - 1) | ((height - 1) << 14)) >>> 0, 1);
  return riffChunk('VP8L', data);
}

// --- HEIF -------------------------------------------------------------------------------------

function box(type: string, ...parts: Buffer[]): Buffer {
  const content = Buffer.concat(parts);
  return Buffer.concat([u32(content.length + 8), latin1(type), content]);
}
const fullBox = (type: string, ...parts: Buffer[]) => box(type, Buffer.alloc(4), ...parts);

/** A HEIC whose item properties declare these image sizes (`ispe`), and `extra` boxes in ipco. */
export function heicDeclaring(sizes: [number, number][], extra: Buffer[] = []): Buffer {
  const ftyp = box('ftyp', latin1('heic'), u32(0), latin1('mif1heic'));
  const ispes = sizes.map(([w, h]) => fullBox('ispe', u32(w), u32(h)));
  const meta = fullBox(
    'meta',
    fullBox('hdlr', u32(0), latin1('pict'), Buffer.alloc(13)),
    box('iprp', box('ipco', ...extra, ...ispes)),
  );
  return Buffer.concat([ftyp, meta, box('mdat', latin1('hevc-image-bytes'))]);
}
/** An `ispe` box cut short: version and flags, and only the width. */
export const shortIspe = () => box('ispe', Buffer.alloc(4), u32(1));

// --- PDF --------------------------------------------------------------------------------------

/** A one-page PDF whose catalog holds `catalog` and which ends with `objects`. */
export function pdf(catalog = '', objects: (string | Buffer)[] = []): Buffer {
  return Buffer.concat([
    latin1(
      `%PDF-1.7\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R ${catalog} >>\nendobj\n` +
        '2 0 obj\n<< /Type /Pages /Kids [3 0 R] /Count 1 >>\nendobj\n' +
        '3 0 obj\n<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >>\nendobj\n',
    ),
    ...objects.map((o) => (typeof o === 'string' ? latin1(o) : o)),
    latin1('trailer\n<< /Root 1 0 R >>\n%%EOF\n'),
  ]);
}
/** An object holding a stream of `data` (its dictionary `dict`, a Length added). */
export function streamObject(number: number, dict: string, data: Buffer): Buffer {
  return Buffer.concat([
    latin1(`${number} 0 obj\n<< ${dict} /Length ${data.length} >>\nstream\n`),
    data,
    latin1('\nendstream\nendobj\n'),
  ]);
}
/** An object stream holding `objects` (numbered from 10), Flate-compressed. */
export function objectStream(number: number, objects: string[], prefix = ''): Buffer {
  let offset = 0;
  const header: string[] = [];
  for (const [i, o] of objects.entries()) {
    header.push(`${10 + i} ${offset}`);
    offset += o.length + 1;
  }
  const head = `${prefix}${header.join(' ')}\n`;
  const body = `${head}${objects.join('\n')}\n`;
  return streamObject(
    number,
    `/Type /ObjStm /N ${objects.length} /First ${head.length} /Filter /FlateDecode`,
    deflateSync(latin1(body)),
  );
}

/**
 * Deflated `text` (stored, so in blocks of about 64 KB) whose second block is damaged: a reader
 * inflates only what the first block holds.
 */
export function deflatedThenDamaged(text: string): Buffer {
  const data = Buffer.from(deflateSync(Buffer.from(text, 'latin1'), { level: 0 }));
  const second = 7 + data.readUInt16LE(3);
  if (second + 5 > data.length) throw new Error('the text fits one block: make it longer');
  data[second + 3] = (data[second + 3] as number) ^ 0xff; // its length's complement
  return data;
}
