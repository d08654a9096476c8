import type { Logger } from 'pino';
import type { ReceiptReading } from '../inbox-service';

/**
 * The receipt reader, its process started at the first file (a replica nobody drops a receipt
 * on never starts one) and loaded only then (tesseract.js and pdf.js stay out of start-up).
 */
export function lazyReceiptReader(logger: Logger): ReceiptReading & { close(): Promise<void> } {
  let reader: Promise<ReceiptReading & { close(): Promise<void> }> | undefined;
  return {
    async read(bytes, mediaType) {
      reader ??= import('./receipt-reader').then(({ createReceiptReader }) =>
        createReceiptReader({ logger }),
      );
      return (await reader).read(bytes, mediaType);
    },
    async close() {
      await (await reader)?.close();
    },
  };
}
