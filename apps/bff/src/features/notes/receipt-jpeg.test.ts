// JPEG receipts keep only what decodes the picture, up to its end of image: metadata after the
// first scan, between scans and after EOI goes; a header declaring a huge picture is refused.
import { describe, expect, it } from 'vitest';
import {
  EOI,
  exif,
  frame,
  huffmanTable,
  jfif,
  jpeg,
  quantTable,
  SECRET,
  scan,
  segment,
} from '../../test/crafted-receipts';
import { inspectReceipt, RECEIPT_MAX_PIXELS, ReceiptRefusedError } from './receipt-file';

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

/** A minimal picture: JFIF, tables, a 2×2 frame, one scan of `data`, then `tail` (EOI in it). */
const picture = (data: Buffer | string, tail: Buffer[] = [EOI]) =>
  jpeg(jfif(), quantTable(), frame(2, 2), huffmanTable(), scan(data), ...tail);

describe('a JPEG receipt', () => {
  it('ends at its end of image: whatever follows it (a trailer, a second picture) is gone', async () => {
    const trailer = Buffer.from(`SEFH\0\0${SECRET}\xff\xd8\xff\xe1 more ${SECRET}`, 'latin1');
    const input = picture('scan-data', [EOI, trailer]);
    const bytes = await kept(input);
    expect(has(bytes, SECRET)).toBe(false);
    expect(bytes).toEqual(picture('scan-data'));
    expect(bytes.subarray(-2)).toEqual(EOI);
  });

  it('drops metadata between and after scans, and keeps the tables and scans that decode it', async () => {
    const input = jpeg(
      jfif(),
      quantTable(),
      frame(2, 2, 0xc2),
      huffmanTable(),
      scan('first-scan'),
      segment(0xe1, `Exif\0\0MM\0*${SECRET}`),
      segment(0xfe, `comment ${SECRET}`),
      segment(0xed, `Photoshop 3.0\0${SECRET}`),
      huffmanTable(),
      segment(0xdd, Buffer.from([0, 4])),
      scan('second-scan'),
      EOI,
    );
    const bytes = await kept(input);
    expect(has(bytes, SECRET)).toBe(false);
    expect(bytes).toEqual(
      jpeg(
        jfif(),
        quantTable(),
        frame(2, 2, 0xc2),
        huffmanTable(),
        scan('first-scan'),
        huffmanTable(),
        segment(0xdd, Buffer.from([0, 4])),
        scan('second-scan'),
        EOI,
      ),
    );
  });

  it('reads a scan past stuffed bytes, restart markers and fill bytes', async () => {
    const data = Buffer.from([1, 0xff, 0x00, 2, 0xff, 0xd0, 3, 0xff, 0xd7, 4]);
    const filled = Buffer.concat([data, Buffer.from([0xff, 0xff])]);
    const bytes = await kept(picture(filled, [EOI, Buffer.from(SECRET)]));
    expect(bytes).toEqual(picture(filled));
    // Fill bytes before a segment's marker are skipped.
    const before = jpeg(Buffer.from([0xff]), jfif(), frame(2, 2), scan('s'), EOI);
    expect(await kept(before)).toEqual(jpeg(jfif(), frame(2, 2), scan('s'), EOI));
  });

  it('keeps JFIF without its thumbnail, an ICC profile and Adobe’s transform; drops look-alikes', async () => {
    const thumbnail = Buffer.from(SECRET.padEnd(48, '.'));
    const icc = segment(0xe2, 'ICC_PROFILE\0\x01\x01profile-bytes');
    const adobe = segment(0xee, 'Adobe\0\x64\0\0\0\0\x01');
    const input = jpeg(
      jfif(thumbnail, [4, 4]),
      segment(0xe0, `JFXX\0\x10${SECRET}`),
      segment(0xe0, 'JFIF\0\x01'),
      icc,
      segment(0xe2, `MPF\0${SECRET}`),
      adobe,
      segment(0xee, `Other${SECRET}`),
      frame(2, 2),
      scan('s'),
      EOI,
    );
    const bytes = await kept(input);
    expect(has(bytes, SECRET)).toBe(false);
    expect(bytes).toEqual(jpeg(jfif(), icc, adobe, frame(2, 2), scan('s'), EOI));
  });

  it('drops every other kind of segment: APPn, comments, reserved and JPG extensions', async () => {
    for (const marker of [0x02, 0xbf, 0xc8, 0xe1, 0xe3, 0xef, 0xf0, 0xfd, 0xfe]) {
      const input = jpeg(segment(marker, SECRET), frame(2, 2), scan('s'), EOI);
      expect(await kept(input), marker.toString(16)).toEqual(jpeg(frame(2, 2), scan('s'), EOI));
    }
  });

  it('keeps every segment a decoder needs', async () => {
    for (const marker of [0xc4, 0xcc, 0xda, 0xdb, 0xdc, 0xdd, 0xde, 0xdf]) {
      const input = jpeg(segment(marker, 'table'), frame(2, 2), scan('s'), EOI);
      expect(await kept(input), marker.toString(16)).toEqual(input);
    }
  });

  it('keeps the EXIF orientation alone, read in either byte order from any entry of IFD0', async () => {
    const rest = [jfif(), frame(2, 2), scan('s'), EOI];
    const orientedAs = async (...segments: Buffer[]) => kept(jpeg(...segments, ...rest));
    const upright = jpeg(...rest);
    const turned = (value: number) => jpeg(exif([[0x0112, value]]), ...rest);
    expect(await orientedAs(exif([[0x0112, 6]]))).toEqual(turned(6));
    expect(await orientedAs(exif([[0x0112, 3]], { order: 'II' }))).toEqual(turned(3));
    const second = exif([
      [0x010f, 5],
      [0x0112, 8],
      [0x8825, 7],
    ]);
    expect(await orientedAs(second)).toEqual(turned(8));
    expect(await orientedAs(exif([[0x0112, 2]], { ifd: 20 }))).toEqual(turned(2));
    // The first EXIF decides; only APP1 holds one; values outside 2–8 leave it upright.
    expect(await orientedAs(exif([[0x0112, 6]]), exif([[0x0112, 3]]))).toEqual(turned(6));
    const inApp3 = exif([[0x0112, 6]]);
    inApp3[1] = 0xe3;
    expect(await orientedAs(inApp3)).toEqual(upright);
    for (const value of [0, 1, 9, 0xffff]) {
      expect(await orientedAs(exif([[0x0112, value]])), String(value)).toEqual(upright);
    }
    // An entry past the count is not read; nor is an EXIF under another name.
    const beyond = exif(
      [
        [0x010f, 1],
        [0x0112, 6],
      ],
      { count: 1 },
    );
    expect(await orientedAs(beyond)).toEqual(upright);
    expect(await orientedAs(exif([[0x0112, 6]], { tag: 'Exix\0\0' }))).toEqual(upright);
  });

  it('takes a broken EXIF for none, and keeps the picture', async () => {
    const rest = [jfif(), frame(2, 2), scan('s'), EOI];
    for (const broken of [
      exif([[0x0112, 6]], { cut: 7 }),
      exif([[0x0112, 6]], { cut: 9 }),
      exif([[0x0112, 6]], { cut: 19 }),
      exif([[0x010f, 6]], { count: 3 }),
      exif([], { ifd: 4000, cut: 40 }),
    ]) {
      expect(await kept(jpeg(broken, ...rest))).toEqual(jpeg(...rest));
    }
  });

  it('drops what only looks like a kept segment: those tags in other APPn', async () => {
    const input = jpeg(
      segment(0xe3, 'JFIF\0\x01\x02\0\0\x01\0\x01\0\0'),
      segment(0xe3, 'ICC_PROFILE\0\x01\x01'),
      segment(0xe3, 'Adobe\0\x64'),
      segment(0xe1, 'JFIF\0\x01\x02\0\0\x01\0\x01\0\0'),
      frame(2, 2),
      scan('s'),
      segment(0xc8, SECRET),
      segment(0x02, SECRET),
      scan('t'),
      EOI,
    );
    expect(await kept(input)).toEqual(jpeg(frame(2, 2), scan('s'), scan('t'), EOI));
  });

  it('refuses a frame declaring more than the pixel limit, whichever kind of frame', async () => {
    for (const marker of [0xc0, 0xc1, 0xc2, 0xc3, 0xc5, 0xc6, 0xc7, 0xc9, 0xca, 0xcb, 0xcd, 0xcf]) {
      const error = await refusal(jpeg(frame(65_535, 65_535, marker), scan('s'), EOI));
      expect(error.reason, marker.toString(16)).toBe('pixels');
      expect([error.width, error.height]).toEqual([65_535, 65_535]);
    }
    // Exactly at the limit is a picture; one row more is not.
    expect(RECEIPT_MAX_PIXELS).toBe(100_000_000);
    await expect(inspectReceipt(jpeg(frame(10_000, 10_000), scan('s'), EOI))).resolves.toBeTruthy();
    expect((await refusal(jpeg(frame(10_000, 10_001), scan('s'), EOI))).reason).toBe('pixels');
    expect((await refusal(jpeg(frame(10_001, 10_000), scan('s'), EOI))).reason).toBe('pixels');
    // Tables are no frames, however their bytes read.
    const wide = Buffer.from([8, 0xff, 0xff, 0xff, 0xff, 1]);
    for (const marker of [0xc4, 0xc8, 0xcc]) {
      await expect(
        inspectReceipt(jpeg(segment(marker, wide), frame(2, 2), scan('s'), EOI)),
      ).resolves.toBeTruthy();
    }
  });

  it('refuses a damaged one: no end of image, no scan, an empty frame, a bare marker, a bad length', async () => {
    const cases: [string, Buffer][] = [
      ['no end of image', jpeg(frame(2, 2), scan('data with no end'))],
      ['a marker at the very end', jpeg(frame(2, 2), scan(Buffer.from([1, 0xff])))],
      ['no scan', jpeg(frame(2, 2), EOI)],
      ['zero height', jpeg(frame(2, 0), scan('s'), EOI)],
      ['zero width', jpeg(frame(0, 2), scan('s'), EOI)],
      ['a frame too short', jpeg(segment(0xc0, '\x08\0\x02\0'), scan('s'), EOI)],
      ['a length under 2', jpeg(Buffer.from([0xff, 0xdb, 0, 1]), frame(2, 2), scan('s'), EOI)],
      ['a segment past the end', jpeg(Buffer.from([0xff, 0xdb, 0, 200, 1, 2]))],
      ['a marker with no length', jpeg(Buffer.from([0xff, 0xdb, 0]))],
      [
        'no marker where one belongs',
        jpeg(jfif(), Buffer.from([0x00, 0xdb, 0, 4, 1, 2]), frame(2, 2), scan('s'), EOI),
      ],
      ['ends after the start', Buffer.concat([jpeg(), Buffer.from([0xff])])],
    ];
    for (const bare of [0x00, 0x01, 0xd0, 0xd7, 0xd8]) {
      cases.push([
        `bare ${bare}`,
        jpeg(Buffer.from([0xff, bare, 0, 4, 1, 2]), frame(2, 2), scan('s'), EOI),
      ]);
    }
    for (const [what, input] of cases) {
      expect((await refusal(input)).reason, what).toBe('damaged');
    }
  });
});
