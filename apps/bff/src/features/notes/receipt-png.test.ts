// PNG receipts keep their critical chunks and the ancillary ones that decide the look; private and
// unknown chunks and whatever follows IEND go; a header declaring a huge picture is refused.
import { describe, expect, it } from 'vitest';
import { ihdr, PNG_SIGNATURE, png, pngChunk, SECRET } from '../../test/crafted-receipts';
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

describe('a PNG receipt', () => {
  it('loses private, unknown and text chunks, and whatever follows IEND', async () => {
    const input = png(
      [
        pngChunk('prVt', SECRET),
        pngChunk('zzZz', SECRET),
        pngChunk('tEXt', `Author\0${SECRET}`),
        pngChunk('iTXt', `XML:com.adobe.xmp\0\0\0\0\0${SECRET}`),
        pngChunk('zTXt', `Comment\0\0${SECRET}`),
        pngChunk('eXIf', `MM\0*${SECRET}`),
        pngChunk('tIME', '\x07\xea\x01\x02\x03\x04\x05'),
        pngChunk('sPLT', `${SECRET}\0\x08`),
        pngChunk('hIST', '\0\x01'),
        pngChunk('oFFs', '\0\0\0\0\0\0\0\0\0'),
      ],
      { after: Buffer.concat([pngChunk('tEXt', SECRET), Buffer.from(SECRET)]) },
    );
    const bytes = await kept(input);
    expect(has(bytes, SECRET)).toBe(false);
    expect(bytes).toEqual(png());
  });

  it('keeps the ancillary chunks that decide how the picture looks', async () => {
    const look = [
      'tRNS',
      'gAMA',
      'cHRM',
      'sRGB',
      'iCCP',
      'sBIT',
      'cICP',
      'mDCV',
      'cLLI',
      'bKGD',
      'pHYs',
    ];
    const input = png([pngChunk('PLTE', '\0\0\0'), ...look.map((type) => pngChunk(type, 'look'))]);
    expect(await kept(input)).toEqual(input);
  });

  it('refuses a header declaring more than the pixel limit', async () => {
    const huge = await refusal(png([], { width: 100_000, height: 100_000 }));
    expect(huge.reason).toBe('pixels');
    expect([huge.width, huge.height]).toEqual([100_000, 100_000]);
    expect(String(huge)).toBe('ReceiptRefusedError: receipt refused: pixels');
    expect((await refusal(png([], { width: 10_001, height: 10_000 }))).reason).toBe('pixels');
    const limit = png([], { width: 10_000, height: 10_000 });
    expect(await kept(limit)).toEqual(limit);
  });

  it('refuses a damaged one', async () => {
    const cases: [string, Buffer][] = [
      ['an unknown critical chunk', png([pngChunk('CgBI', 'apple')])],
      ['zero width', png([], { width: 0 })],
      ['zero height', png([], { height: 0 })],
      ['no IEND', png().subarray(0, -12)],
      [
        'a chunk past the end',
        Buffer.concat([PNG_SIGNATURE, ihdr(), pngChunk('IDAT', 'x').subarray(0, 10)]),
      ],
      // Apple's CgBI chunk before IHDR (file-type takes that for a PNG): no viewer shows it.
      [
        'IHDR not first',
        Buffer.concat([PNG_SIGNATURE, pngChunk('CgBI', '1234'), png().subarray(8)]),
      ],
      ['cut in its IHDR', png().subarray(0, 22)],
      [
        'an IEND longer than the file',
        Buffer.concat([png().subarray(0, -12), pngChunk('IEND', 'x').subarray(0, 12)]),
      ],
      ['cut in a chunk header', png().subarray(0, 35)],
    ];
    for (const [what, input] of cases) {
      expect((await refusal(input)).reason, what).toBe('damaged');
    }
  });
});
