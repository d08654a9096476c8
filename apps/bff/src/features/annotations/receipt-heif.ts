import { checkPixels, damaged } from './receipt-refused';

// HEIC/HEIF (ISO base media file format): the `meta` box lists items (`iinf`) and where their
// bytes are (`iloc`). The Exif item and XMP (a `mime` item) have their bytes zeroed; the file's
// size and every offset stay as they were. Each image size the file declares is held to the
// pixel limit.
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

export function stripHeif(input: Buffer): Buffer {
  const output = Buffer.from(input);
  const meta = boxesIn(input, 0, input.length).find((b) => b.type === 'meta');
  if (!meta) return output;
  // `meta` is a full box: version and flags before its children.
  const children = boxesIn(input, meta.content + 4, meta.end);
  checkDeclaredSizes(input, children);
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

/**
 * Every image size the item properties declare (`iprp` > `ipco` > `ispe`: a full box, then
 * width and height in 32 bits each), each held to the pixel limit: a grid's size is the whole
 * picture's.
 */
function checkDeclaredSizes(input: Buffer, metaChildren: Box[]): void {
  const iprp = metaChildren.find((b) => b.type === 'iprp');
  const ipco = iprp && boxesIn(input, iprp.content, iprp.end).find((b) => b.type === 'ipco');
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
