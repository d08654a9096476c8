import * as shared from '@card-console/shared/api/notes';
import { describe, expect, it } from 'vitest';
import {
  fileProblem,
  formatBytes,
  isPreviewable,
  RECEIPT_MAX_BYTES,
  RECEIPTS_PER_TRANSACTION,
  receiptTypeName,
} from './receipt-file';

describe('receipt files', () => {
  it("holds the BFF's limits, repeated to keep zod out of the screen", () => {
    expect(RECEIPT_MAX_BYTES).toBe(shared.RECEIPT_MAX_BYTES);
    expect(RECEIPTS_PER_TRANSACTION).toBe(shared.RECEIPTS_PER_TRANSACTION);
  });

  it('says a size in bytes, KB or MB', () => {
    expect(formatBytes(1)).toBe('1 byte');
    expect(formatBytes(812)).toBe('812 bytes');
    expect(formatBytes(48_213)).toBe('47 KB');
    expect(formatBytes(RECEIPT_MAX_BYTES)).toBe('10 MB');
    expect(formatBytes(2_400_000)).toBe('2.3 MB');
  });

  it('refuses before sending only what the BFF could never take: too big or empty', () => {
    const sized = (size: number) => new File([new Uint8Array(size)], 'r.png');
    expect(fileProblem(sized(RECEIPT_MAX_BYTES))).toBeUndefined();
    expect(fileProblem(sized(RECEIPT_MAX_BYTES + 1))).toMatch(/at most 10 MB\. It was not sent\./);
    expect(fileProblem(sized(0))).toBe('The file is empty. It was not sent.');
  });

  it('previews only the pictures a browser shows', () => {
    expect(['image/jpeg', 'image/png', 'image/webp'].every(isPreviewable)).toBe(true);
    expect(['image/heic', 'image/heif', 'application/pdf'].some(isPreviewable)).toBe(false);
    expect(receiptTypeName('application/pdf')).toBe('PDF');
    expect(receiptTypeName('image/x-new')).toBe('image/x-new');
  });
});
