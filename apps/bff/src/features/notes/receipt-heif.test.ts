// HEIC receipts: the Exif and XMP items' bytes are zeroed in place, whichever box versions and
// field sizes describe them; a picture declaring more than the pixel limit is refused.
import { describe, expect, it } from 'vitest';
import {
  box,
  type HeifItem,
  heicDeclaring,
  heif,
  SECRET,
  shortIspe,
} from '../../test/crafted-receipts';
import { heicWithGps } from '../../test/receipt-files';
import { inspectReceipt, ReceiptRefusedError } from './receipt-file';

const has = (bytes: Buffer, text: string) => bytes.includes(Buffer.from(text, 'latin1'));
const kept = async (input: Buffer) => (await inspectReceipt(input)).bytes;
async function refusal(input: Buffer) {
  const error = await inspectReceipt(input).then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof ReceiptRefusedError)) throw new Error(`accepted: ${error}`);
  return error;
}

const PICTURE = 'hevc-image-bytes';
const image: HeifItem = { id: 1, type: 'hvc1', data: PICTURE };
const exifItem = (more: Partial<HeifItem> = {}): HeifItem => ({
  id: 2,
  type: 'Exif',
  data: `\0\0\0\0MM\0*${SECRET}`,
  ...more,
});

/** The file with `text`'s bytes zeroed where they are: what stripping it should give. */
function zeroed(input: Buffer, text: string): Buffer {
  const at = input.indexOf(Buffer.from(text, 'latin1'));
  if (at < 0) throw new Error('not in the file');
  return Buffer.from(input).fill(0, at, at + text.length);
}

describe('a HEIC receipt', () => {
  it('has its Exif item zeroed in place, whatever the iinf and iloc versions and field sizes', async () => {
    const variants: Parameters<typeof heif>[1][] = [
      {},
      { iinfVersion: 1, ilocVersion: 1, indexSize: 4, baseOffsetSize: 4, pad: 300 },
      { ilocVersion: 2, offsetSize: 8, lengthSize: 8, baseOffsetSize: 8, pad: 70_000 },
      { ilocVersion: 1, offsetSize: 0, baseOffsetSize: 4 },
    ];
    for (const options of variants) {
      const items =
        options?.offsetSize === 0 ? [exifItem({ id: 1 })] : [image, exifItem({ method: 0 })];
      const input = heif(items, options);
      const bytes = await kept(input);
      expect(has(bytes, SECRET), JSON.stringify(options)).toBe(false);
      expect(bytes).toEqual(zeroed(input, exifItem().data));
    }
    // Version 3 entries and a version 2 iloc hold 32-bit item ids.
    const wide = heif([image, exifItem({ id: 70_000, infeVersion: 3 })], { ilocVersion: 2 });
    expect(await kept(wide)).toEqual(zeroed(wide, exifItem().data));
  });

  it('has XMP zeroed, and keeps other items, version 1 entries and items outside the file', async () => {
    const xmp = `<x:xmpmeta>${SECRET}</x:xmpmeta>`;
    const input = heif([
      image,
      { id: 2, type: 'mime', contentType: 'application/rdf+xml', data: xmp },
      { id: 3, type: 'mime', contentType: 'image/jpeg', data: 'thumbnail-bytes' },
      { id: 4, type: 'Exif', infeVersion: 1, data: 'named-exif-bytes' },
    ]);
    expect(await kept(input)).toEqual(zeroed(input, xmp));
    // Only a mime item of XMP's type: not another item naming it.
    const named = heif([{ ...image, contentType: 'application/rdf+xml' }, exifItem()]);
    expect(await kept(named)).toEqual(zeroed(named, exifItem().data));
    // A version 1 entry names no type, whatever its bytes read as in a later version.
    const v1 = box('infe', Buffer.from([1, 0, 0, 0, 0, 0, 0, 4]), Buffer.from('xxExif\0'));
    const older = heif([image, { id: 4, type: '', infe: v1, data: 'named-exif-bytes' }]);
    expect(await kept(older)).toEqual(older);
    // In a version 0 iloc the index size is reserved: no index is read.
    const reserved = heif([image, exifItem()], { reserved: 4 });
    expect(await kept(reserved)).toEqual(zeroed(reserved, exifItem().data));
    // Construction method 1: the offset is inside the idat box, not the file.
    const inIdat = heif([image, exifItem({ method: 1 })], { ilocVersion: 1 });
    expect(await kept(inIdat)).toEqual(inIdat);
  });

  it('is kept as it is with no meta, no iinf or no iloc', async () => {
    const noMeta = Buffer.concat([heicWithGps().subarray(0, 24), box('mdat', Buffer.from(SECRET))]);
    for (const input of [
      noMeta,
      heif([image, exifItem()], { without: 'iloc' }),
      heif([image, exifItem()], { without: 'iinf' }),
    ]) {
      expect(await kept(input)).toEqual(input);
    }
  });

  it('is refused as damaged when a table or a box does not fit', async () => {
    const cases: [string, Buffer][] = [
      [
        'an iloc cut short',
        heif([image, exifItem()], {
          iloc: (table) => {
            const cut = Buffer.from(table.subarray(0, table.length - 14)); // the last item
            cut.writeUInt32BE(cut.length, 0);
            return cut;
          },
        }),
      ],
      ['a box past the end', heicDeclaring([[2, 2]]).subarray(0, -1)],
      [
        'an extent past the end',
        heif([image, exifItem()], {
          iloc: (table) => {
            const longer = Buffer.from(table);
            longer.writeUInt32BE(100_000, longer.length - 4); // the Exif item's length
            return longer;
          },
        }),
      ],
      [
        'a box under its header',
        Buffer.concat([
          heicWithGps().subarray(0, 24),
          Buffer.from([0, 0, 0, 4, 0x66, 0x72, 0x65, 0x65]),
        ]),
      ],
      ['a box past its parent', heicWithGps().subarray(0, -1)],
    ];
    for (const [what, input] of cases) {
      expect((await refusal(input)).reason, what).toBe('damaged');
    }
  });

  it('is refused when any image it declares is past the pixel limit (a grid or a tile)', async () => {
    const huge = await refusal(heicDeclaring([[100_000, 100_000]]));
    expect([huge.reason, huge.width, huge.height]).toEqual(['pixels', 100_000, 100_000]);
    const grid = await refusal(
      heicDeclaring([
        [512, 512],
        [10_001, 10_000],
      ]),
    );
    expect([grid.reason, grid.width]).toEqual(['pixels', 10_001]);
  });

  it('reads boxes in every size form: a 64-bit size, one to the end, an empty one', async () => {
    const declaring = heicDeclaring([[100_000, 100_000]]);
    const ftyp = declaring.subarray(0, 24);
    const meta = declaring.subarray(24, declaring.length - 24);
    const large = Buffer.concat([
      Buffer.from([0, 0, 0, 1]),
      Buffer.from('free'),
      Buffer.from([0, 0, 0, 0, 0, 0, 0, 20]),
      Buffer.alloc(4),
    ]);
    const toTheEnd = Buffer.from(meta);
    toTheEnd.writeUInt32BE(0, 0);
    const largeMeta = Buffer.concat([
      Buffer.from([0, 0, 0, 1]),
      Buffer.from('meta'),
      Buffer.alloc(8),
      meta.subarray(8),
    ]);
    largeMeta.writeBigUInt64BE(BigInt(largeMeta.length), 8);
    for (const input of [
      Buffer.concat([ftyp, large, box('free'), meta]),
      Buffer.concat([ftyp, toTheEnd]),
      Buffer.concat([ftyp, largeMeta]),
    ]) {
      expect((await refusal(input)).reason).toBe('pixels');
    }
  });

  it('is taken at the limit and below, and with no sizes declared', async () => {
    for (const input of [
      heicDeclaring([[10_000, 10_000]]),
      heicDeclaring([[4032, 3024]], [Buffer.from('\0\0\0\x0cpixi\0\0\0\0', 'latin1')]),
      heicWithGps(),
    ]) {
      expect((await inspectReceipt(input)).mediaType).toBe('image/heic');
    }
  });

  it('is refused as damaged when a declared size is cut short, empty or zero', async () => {
    expect((await refusal(heicDeclaring([], [shortIspe()]))).reason).toBe('damaged');
    expect((await refusal(heicDeclaring([], [box('ispe')]))).reason).toBe('damaged');
    expect((await refusal(heicDeclaring([[0, 10]]))).reason).toBe('damaged');
  });
});
