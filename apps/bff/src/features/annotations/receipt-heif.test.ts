// HEIC receipts whose item properties declare a huge picture are refused.
import { describe, expect, it } from 'vitest';
import { heicDeclaring, shortIspe } from '../../test/crafted-receipts';
import { heicWithGps } from '../../test/receipt-files';
import { inspectReceipt, ReceiptRefusedError } from './receipt-file';

async function refusal(input: Buffer) {
  const error = await inspectReceipt(input).then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof ReceiptRefusedError)) throw new Error(`accepted: ${error}`);
  return error;
}

describe('a HEIC receipt', () => {
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

  it('is taken at the limit and below, and with no sizes declared', async () => {
    for (const input of [
      heicDeclaring([[10_000, 10_000]]),
      heicDeclaring([[4032, 3024]], [Buffer.from('\0\0\0\x0cpixi\0\0\0\0', 'latin1')]),
      heicWithGps(),
    ]) {
      expect((await inspectReceipt(input)).mediaType).toBe('image/heic');
    }
  });

  it('is refused as damaged when a declared size is cut short or empty', async () => {
    expect((await refusal(heicDeclaring([], [shortIspe()]))).reason).toBe('damaged');
    expect((await refusal(heicDeclaring([[0, 10]]))).reason).toBe('damaged');
  });
});
