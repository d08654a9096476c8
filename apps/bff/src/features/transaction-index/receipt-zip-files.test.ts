import { describe, expect, it } from 'vitest';
import { AppError } from '../../core/app-error';
import {
  checkReceiptsZipCaps,
  type PlannedReceipt,
  plannedFiles,
  totalsOf,
} from './receipt-zip-files';

const MB = 1024 * 1024;
const caps = { maxFiles: 500, maxBytes: 1024 * MB };

function refusal(totals: { files: number; bytes: number }, given = caps): AppError {
  try {
    checkReceiptsZipCaps(totals, given);
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('not refused');
}

describe('a receipts ZIP past its caps', () => {
  it('holds up to both caps exactly, and refuses one receipt or one byte more', () => {
    expect(() => checkReceiptsZipCaps({ files: 500, bytes: 1024 * MB }, caps)).not.toThrow();
    expect(refusal({ files: 501, bytes: 10 }).status).toBe(422);
    expect(refusal({ files: 1, bytes: 1024 * MB + 1 }).code).toBe('receipts_zip_too_large');
  });

  it('says how many receipts and how large, what one ZIP holds, and what to do', () => {
    const error = refusal({ files: 812, bytes: Math.round(1.4 * 1024 * MB) });
    expect(error.message).toBe(
      'These transactions have 812 receipts (1.4 GB); one ZIP holds at most 500 receipts and 1 GB. Narrow the period or the filters, and download the rest in another ZIP.',
    );
    expect(error.extensions).toEqual({
      files: 812,
      bytes: Math.round(1.4 * 1024 * MB),
      maxFiles: 500,
      maxBytes: 1024 * MB,
    });
    expect(
      refusal({ files: 1, bytes: 3 * MB + 1 }, { maxFiles: 1, maxBytes: 3 * MB }).message,
    ).toMatch(
      /^These transactions have 1 receipt \(3 MB\); one ZIP holds at most 1 receipt and 3 MB\./,
    );
    expect(refusal({ files: 2_345, bytes: 1_500 }, caps).message).toMatch(
      /^These transactions have 2,345 receipts \(2 KB\);/,
    );
    expect(refusal({ files: 9, bytes: 2_560 * MB }, caps).message).toMatch(/\(2\.5 GB\)/);
  });

  it('counts what was listed', () => {
    const planned = [100, 250].map((byteSize, i) => ({ byteSize, receiptId: `r${i}` }));
    expect(totalsOf(planned as PlannedReceipt[])).toEqual({ files: 2, bytes: 350 });
    expect(totalsOf([])).toEqual({ files: 0, bytes: 0 });
  });
});

describe("a receipts ZIP's files", () => {
  const planned: PlannedReceipt[] = ['a', 'b', 'c'].map((id, i) => ({
    transactionId: `t-${id}`,
    receiptId: id,
    name: `${id}.pdf`,
    at: new Date(Date.UTC(2026, 10, i + 1)),
    byteSize: 3,
  }));

  it('are read one at a time, as asked; one removed since the list was made is left out', async () => {
    const asked: string[] = [];
    const files = plannedFiles(
      planned,
      async (p) => {
        asked.push(p.receiptId);
        return p.receiptId === 'b' ? undefined : { content: Buffer.from(p.receiptId) };
      },
      new AbortController().signal,
    );
    const first = await files.next();
    expect(asked).toEqual(['a']);
    expect(first.value).toEqual({ name: 'a.pdf', content: Buffer.from('a'), at: planned[0]?.at });
    const rest = [];
    for await (const file of files) rest.push(file.name);
    expect(rest).toEqual(['c.pdf']);
    expect(asked).toEqual(['a', 'b', 'c']);
  });

  it('stop being read once the download has ended', async () => {
    const stop = new AbortController();
    const asked: string[] = [];
    const files = plannedFiles(
      planned,
      async (p) => {
        asked.push(p.receiptId);
        return { content: Buffer.from(p.receiptId) };
      },
      stop.signal,
    );
    await files.next();
    stop.abort();
    expect((await files.next()).done).toBe(true);
    expect(asked).toEqual(['a']);
  });
});
