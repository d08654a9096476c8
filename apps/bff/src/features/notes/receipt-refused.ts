/**
 * Why a receipt's bytes are refused: not a receipt type, damaged, a picture whose header declares
 * more pixels than anyone photographs a receipt with (a decompression bomb for whoever shows it),
 * or a PDF that can act when opened.
 */
export type ReceiptRefusal = 'type' | 'damaged' | 'pixels' | 'active';

export class ReceiptRefusedError extends Error {
  constructor(
    readonly reason: ReceiptRefusal,
    /** For `pixels`: the size the header declares. */
    readonly width = 0,
    readonly height = 0,
  ) {
    super(`receipt refused: ${reason}`);
    this.name = 'ReceiptRefusedError';
  }
}

/**
 * The most pixels a picture receipt may declare: 100 megapixels, twice a 50 MP phone camera's
 * photo, and 400 MB once decoded to RGBA (a browser showing it holds that much).
 */
export const RECEIPT_MAX_PIXELS = 100_000_000;

export const damaged = (): never => {
  throw new ReceiptRefusedError('damaged');
};

/** Refuses a picture the header declares empty (damaged) or larger than `RECEIPT_MAX_PIXELS`. */
export function checkPixels(width: number, height: number): void {
  if (width === 0 || height === 0) damaged();
  if (width * height > RECEIPT_MAX_PIXELS) {
    throw new ReceiptRefusedError('pixels', width, height);
  }
}
