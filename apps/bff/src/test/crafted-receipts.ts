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

export function box(type: string, ...parts: Buffer[]): Buffer {
  const content = Buffer.concat(parts);
  return Buffer.concat([u32(content.length + 8), latin1(type), content]);
}
const fullBox = (type: string, version: number, ...parts: Buffer[]) =>
  box(type, Buffer.from([version, 0, 0, 0]), ...parts);
const uint = (n: number, bytes: number) => {
  const b = Buffer.alloc(bytes);
  for (let i = bytes - 1, v = n; i >= 0; i--, v = Math.floor(v / 256)) b[i] = v % 256;
  return b;
};
const ftyp = () => box('ftyp', latin1('heic'), u32(0), latin1('mif1heic'));

/** A HEIC whose item properties declare these image sizes (`ispe`), and `extra` boxes in ipco. */
export function heicDeclaring(sizes: [number, number][], extra: Buffer[] = []): Buffer {
  const ispes = sizes.map(([w, h]) => fullBox('ispe', 0, u32(w), u32(h)));
  const meta = fullBox(
    'meta',
    0,
    fullBox('hdlr', 0, u32(0), latin1('pict'), Buffer.alloc(13)),
    box('iprp', box('ipma', Buffer.alloc(8)), box('ipco', ...extra, ...ispes)),
  );
  return Buffer.concat([ftyp(), meta, box('mdat', latin1('hevc-image-bytes'))]);
}
/** An `ispe` box cut short: version and flags, and only the width. */
export const shortIspe = () => box('ispe', Buffer.alloc(4), u32(1));

export interface HeifItem {
  id: number;
  /** The item type (`infe` version 2 or 3), or the item's name in a version 1 `infe`. */
  type: string;
  infeVersion?: 1 | 2 | 3;
  /** After the type: a `mime` item's content type. */
  contentType?: string;
  data: string;
  /** iloc construction method (versions 1 and 2): 0 is the file. */
  method?: number;
  /** The `infe` box as given, instead of one made from the fields above. */
  infe?: Buffer;
}

/**
 * A HEIC of `items` (their bytes in `mdat`, after `pad` bytes of a free box), with an `iinf` and
 * an `iloc` of the versions and field sizes asked for.
 */
export function heif(
  items: HeifItem[],
  options: {
    iinfVersion?: 0 | 1;
    ilocVersion?: 0 | 1 | 2;
    offsetSize?: 0 | 4 | 8;
    lengthSize?: 4 | 8;
    baseOffsetSize?: 0 | 4 | 8;
    indexSize?: 0 | 4;
    /** The index size field's value in a version 0 iloc, where it is reserved (no index read). */
    reserved?: number;
    pad?: number;
    iloc?: (iloc: Buffer) => Buffer;
    without?: 'iinf' | 'iloc';
  } = {},
): Buffer {
  const o = {
    iinfVersion: 0,
    ilocVersion: 0,
    offsetSize: 4,
    lengthSize: 4,
    baseOffsetSize: 0,
    indexSize: 0,
    reserved: 0,
    pad: 0,
    ...options,
  } as const;
  const infe = (item: HeifItem) => {
    if (item.infe) return item.infe;
    const v = item.infeVersion ?? 2;
    if (v === 1) return fullBox('infe', 1, u16(item.id), u16(0), latin1(`${item.type}\0\0\0`));
    return fullBox(
      'infe',
      v,
      v === 2 ? u16(item.id) : u32(item.id),
      u16(0),
      latin1(item.type),
      latin1(`name\0${item.contentType ?? ''}\0`),
    );
  };
  const build = (mdatData: number) => {
    const wide = o.ilocVersion === 2 ? 4 : 2;
    let offset = 0;
    const entries = items.map((item) => {
      const at = mdatData + offset;
      offset += item.data.length;
      const base = o.baseOffsetSize > 0 ? mdatData : 0;
      return Buffer.concat([
        uint(item.id, wide),
        o.ilocVersion > 0 ? u16(item.method ?? 0) : Buffer.alloc(0),
        u16(0),
        uint(base, o.baseOffsetSize),
        u16(1),
        uint(7, o.indexSize),
        uint(at - base, o.offsetSize),
        uint(item.data.length, o.lengthSize),
      ]);
    });
    const sizes =
      (o.offsetSize << 12) |
      (o.lengthSize << 8) |
      (o.baseOffsetSize << 4) |
      o.indexSize |
      o.reserved;
    const ilocBox = fullBox(
      'iloc',
      o.ilocVersion,
      u16(sizes),
      uint(items.length, wide),
      ...entries,
    );
    const iinfBox = fullBox(
      'iinf',
      o.iinfVersion,
      uint(items.length, o.iinfVersion === 0 ? 2 : 4),
      ...items.map(infe),
    );
    const meta = fullBox(
      'meta',
      0,
      fullBox('hdlr', 0, u32(0), latin1('pict'), Buffer.alloc(13)),
      ...(o.without === 'iinf' ? [] : [iinfBox]),
      ...(o.without === 'iloc' ? [] : [(o.iloc ?? ((b) => b))(ilocBox)]),
    );
    return Buffer.concat([ftyp(), meta, box('free', Buffer.alloc(o.pad))]);
  };
  const head = build(0);
  const withOffsets = build(head.length + 8);
  return Buffer.concat([withOffsets, box('mdat', latin1(items.map((i) => i.data).join('')))]);
}

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

/**
 * An APP1 EXIF segment: a TIFF header in `order`, IFD0 at `ifd` holding `count` entries (as many
 * as given unless told), each a SHORT `[tag, value]`; `cut` keeps only that many TIFF bytes.
 */
export function exif(
  entries: [number, number][],
  options: { order?: 'II' | 'MM'; count?: number; ifd?: number; tag?: string; cut?: number } = {},
): Buffer {
  const little = options.order === 'II';
  const ifd = options.ifd ?? 8;
  const tiff = Buffer.alloc(Math.max(ifd + 2 + entries.length * 12 + 4, 8));
  const w16 = (v: number, at: number) =>
    little ? tiff.writeUInt16LE(v, at) : tiff.writeUInt16BE(v, at);
  const w32 = (v: number, at: number) =>
    little ? tiff.writeUInt32LE(v, at) : tiff.writeUInt32BE(v, at);
  tiff.write(little ? 'II' : 'MM', 0, 'latin1');
  w16(42, 2);
  w32(ifd, 4);
  if (ifd + 2 <= tiff.length) w16(options.count ?? entries.length, ifd);
  for (const [i, [tag, value]] of entries.entries()) {
    const at = ifd + 2 + i * 12;
    w16(tag, at);
    w16(3, at + 2);
    w32(1, at + 4);
    w16(value, at + 8);
  }
  const body = tiff.subarray(0, options.cut ?? tiff.length);
  return segment(0xe1, Buffer.concat([latin1(options.tag ?? 'Exif\0\0'), body]));
}
