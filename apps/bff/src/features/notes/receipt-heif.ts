import { checkPixels, damaged } from './receipt-refused';

// HEIC/HEIF (ISO base media file format): the `meta` box lists items (`iinf`) and where their
// bytes are (`iloc`). The Exif item and XMP (a `mime` item) have their bytes zeroed; the file's
// size and every offset stay as they were. Each image size the file declares is held to the
// pixel limit. A read past the end of the file (a box or a table cut short) is a damaged file.

interface Box {
  type: string;
  /** Where the box's content starts (after size, type and any large size) and where it ends. */
  content: number;
  end: number;
}

/** The boxes from `from` to `to`, each inside them (one reaching past `to` is damaged). */
function* boxesIn(input: Buffer, from: number, to: number): Generator<Box> {
  for (let at = from; at + 8 <= to; ) {
    let size = input.readUInt32BE(at);
    let content = at + 8;
    if (size === 1) {
      size = Number(input.readBigUInt64BE(at + 8));
      content = at + 16;
    } else if (size === 0) {
      size = to - at; // to the end of its parent
    }
    const end = at + size;
    if (end < content || end > to) damaged();
    yield { type: input.toString('latin1', at + 4, at + 8), content, end };
    at = end;
  }
}

const child = (input: Buffer, parent: { content: number; end: number }, type: string) =>
  Array.from(boxesIn(input, parent.content, parent.end)).find((b) => b.type === type);

export function stripHeif(input: Buffer): Buffer {
  const output = Buffer.from(input);
  const meta = child(input, { content: 0, end: input.length }, 'meta');
  if (!meta) return output;
  // `meta` is a full box: version and flags before its children.
  const inMeta = { content: meta.content + 4, end: meta.end };
  checkDeclaredSizes(input, child(input, inMeta, 'iprp'));
  const iinf = child(input, inMeta, 'iinf');
  const iloc = child(input, inMeta, 'iloc');
  if (!iinf || !iloc) return output;
  for (const { offset, length } of itemExtents(input, iloc, metadataItems(input, iinf))) {
    output.fill(0, offset, offset + length); // past the end: a RangeError, so damaged
  }
  return output;
}

/**
 * Every image size the item properties declare (`iprp` > `ipco` > `ispe`: a full box, then
 * width and height in 32 bits each), each held to the pixel limit: a grid's size is the whole
 * picture's.
 */
function checkDeclaredSizes(input: Buffer, iprp: Box | undefined): void {
  const ipco = iprp && child(input, iprp, 'ipco');
  if (!ipco) return;
  for (const ispe of boxesIn(input, ipco.content, ipco.end)) {
    if (ispe.type !== 'ispe') continue;
    if (ispe.content + 12 > ispe.end) damaged();
    checkPixels(input.readUInt32BE(ispe.content + 4), input.readUInt32BE(ispe.content + 8));
  }
}

/** The ids of the Exif item and of XMP (`mime` items of type application/rdf+xml). */
function metadataItems(input: Buffer, iinf: Box): Set<number> {
  const version = input[iinf.content] as number;
  // After version, flags and the entry count (16 bits in version 0, 32 after).
  const entriesAt = iinf.content + 4 + (version === 0 ? 2 : 4);
  const ids = new Set<number>();
  for (const infe of boxesIn(input, entriesAt, iinf.end)) {
    const v = input[infe.content] as number;
    if (v < 2) continue; // versions 0 and 1 name no item type
    const idAt = infe.content + 4;
    const id = v === 2 ? input.readUInt16BE(idAt) : input.readUInt32BE(idAt);
    const typeAt = idAt + (v === 2 ? 2 : 4) + 2; // after item_ID and item_protection_index
    const itemType = input.toString('latin1', typeAt, typeAt + 4);
    const typed = input.toString('latin1', typeAt, infe.end); // the type, name, content type
    if (itemType === 'Exif' || (itemType === 'mime' && typed.includes('application/rdf+xml'))) {
      ids.add(id);
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
  const table = input.subarray(iloc.content, iloc.end);
  const version = table[0] as number;
  let at = 4;
  const read = (bytes: number) => {
    if (at + bytes > table.length) damaged();
    let value = 0;
    for (let i = 0; i < bytes; i++) value = value * 256 + (table[at + i] as number);
    at += bytes;
    return value;
  };
  const sizes = read(2);
  const offsetSize = sizes >> 12;
  const lengthSize = (sizes >> 8) & 0xf;
  const baseOffsetSize = (sizes >> 4) & 0xf;
  const indexSize = version > 0 ? sizes & 0xf : 0;
  const count = read(version < 2 ? 2 : 4);
  const extents: { offset: number; length: number }[] = [];
  for (let i = 0; i < count; i++) {
    const id = read(version < 2 ? 2 : 4);
    const method = version > 0 ? read(2) & 0xf : 0;
    read(2); // data_reference_index
    const base = read(baseOffsetSize);
    const extentCount = read(2);
    for (let e = 0; e < extentCount; e++) {
      read(indexSize);
      const offset = read(offsetSize);
      const length = read(lengthSize);
      // Construction method 0: offsets into the file (1 and 2 point inside other boxes or items).
      if (items.has(id) && method === 0) extents.push({ offset: base + offset, length });
    }
  }
  return extents;
}
