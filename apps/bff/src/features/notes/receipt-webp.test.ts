// WebP receipts keep the picture's chunks and lose the rest; a header declaring a huge picture
// is refused, whether the extended header or the frame's own declares it.
import { describe, expect, it } from 'vitest';
import { riffChunk, SECRET, vp8, vp8l, vp8x, webp } from '../../test/crafted-receipts';
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

describe('a WebP receipt', () => {
  it('keeps the picture’s chunks and loses unknown ones and whatever follows the RIFF', async () => {
    const picture = [
      vp8x(2, 2),
      riffChunk('ICCP', 'profile'),
      riffChunk('ANIM', 'loop'),
      riffChunk('ANMF', 'frame'),
      riffChunk('ALPH', 'alpha'),
      vp8(2, 2),
    ];
    const input = webp(
      [...picture, riffChunk('XYZW', SECRET), riffChunk('EXIF', SECRET)],
      Buffer.from(SECRET),
    );
    const bytes = await kept(input);
    expect(has(bytes, SECRET)).toBe(false);
    expect(bytes).toEqual(webp(picture));
    // An empty chunk ending the file is a chunk too.
    const emptyLast = webp([vp8(2, 2), riffChunk('ALPH', '')]);
    expect(await kept(emptyLast)).toEqual(emptyLast);
  });

  it('reads the size a simple lossy or lossless picture declares', async () => {
    const lossy = webp([vp8(640, 480)]);
    expect(await kept(lossy)).toEqual(lossy);
    const lossless = webp([vp8l(640, 480), riffChunk('XYZW', SECRET)]);
    expect(await kept(lossless)).toEqual(webp([vp8l(640, 480)]));
  });

  it('refuses a header declaring more than the pixel limit', async () => {
    const canvas = await refusal(webp([vp8x(100_000, 100_000), vp8(2, 2)]));
    expect([canvas.reason, canvas.width, canvas.height]).toEqual(['pixels', 100_000, 100_000]);
    const lossy = await refusal(webp([vp8(16_383, 16_383)]));
    expect([lossy.reason, lossy.width, lossy.height]).toEqual(['pixels', 16_383, 16_383]);
    const lossless = await refusal(webp([vp8l(16_384, 16_384)]));
    expect([lossless.reason, lossless.width, lossless.height]).toEqual(['pixels', 16_384, 16_384]);
    // The scale bits above a lossy frame's 14 size bits are no size.
    const scaled = webp([vp8(0xc000 | 2, 0xc000 | 2)]);
    expect(await kept(scaled)).toEqual(scaled);
  });

  it('refuses one with no picture header first, or a frame without its start code', async () => {
    for (const input of [
      webp([riffChunk('ICCP', 'profile'), vp8(2, 2)]),
      webp([riffChunk('VP8 ', Buffer.from('not a frame'))]),
      webp([riffChunk('VP8L', Buffer.from('not a frame'))]),
      // A chunk a few bytes past the file's end.
      webp([vp8x(2, 2), riffChunk('VP8 ', Buffer.alloc(40))]).subarray(0, 70),
    ]) {
      expect((await refusal(input)).reason).toBe('damaged');
    }
  });
});
