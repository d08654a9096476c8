// A receipt file's text: a PDF's text layer, or a picture's OCR. Runs in the reader's child
// process only (reader-child.ts): both can take seconds and hundreds of megabytes.
import type { Worker } from 'tesseract.js';
import { getDocumentProxy } from 'unpdf';

/** A receipt is a page or two; an invoice with an annex has its total up front. */
const MAX_PAGES = 3;

interface PlacedText {
  str: string;
  /** x = transform[4], y = transform[5] (up from the page's bottom); [3] is the font's height. */
  transform: number[];
  width: number;
}

/** A text item, not a marked-content boundary (which has neither string nor place). */
const isPlaced = <T extends object>(item: T): item is T & PlacedText =>
  'str' in item && 'transform' in item;

/**
 * A page's text items as the lines a reader sees: items at the same height (within half their
 * font size) form a line, lines top to bottom, items left to right, a space where the gap
 * between two items shows one. pdf.js's own `extractText` merges a page into one line, which
 * loses what the field rules need: which amount stands on the TOTAL line.
 */
function linesOf(items: readonly PlacedText[]): string[] {
  const placed = items
    .filter((item) => item.str.trim() !== '')
    .map((item) => ({
      text: item.str,
      x: item.transform[4] ?? 0,
      y: item.transform[5] ?? 0,
      size: Math.abs(item.transform[3] ?? 0) || 10,
      width: item.width,
    }))
    .sort((a, b) => b.y - a.y);
  const lines: (typeof placed)[] = [];
  for (const item of placed) {
    const line = lines.at(-1);
    const first = line?.[0];
    if (line && first && Math.abs(first.y - item.y) <= Math.min(first.size, item.size) / 2) {
      line.push(item);
    } else lines.push([item]);
  }
  return lines.map((line) => {
    line.sort((a, b) => a.x - b.x);
    let text = '';
    let end = Number.NEGATIVE_INFINITY;
    for (const item of line) {
      const gap = item.x - end;
      if (text !== '' && gap > item.size * 0.15) text += ' ';
      text += item.text;
      end = item.x + item.width;
    }
    return text.replace(/\s+/g, ' ').trim();
  });
}

/**
 * The text layer of the first pages of a PDF, line by line. A scanned PDF has none (empty
 * text): reading its pictures would mean rendering pages for OCR, which needs a native canvas
 * build (`@napi-rs/canvas`) in the image; such a PDF is `unreadable`.
 */
export async function pdfLines(bytes: Uint8Array): Promise<string> {
  // No eval of font programs (the road of CVE-2024-4367), no fonts loaded: text only.
  // pdf.js refuses a Buffer (what IPC may hand over): a plain view of the same bytes.
  const data = new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const pdf = await getDocumentProxy(data, {
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
    stopAtErrors: false,
  });
  try {
    const pages: string[] = [];
    for (let n = 1; n <= Math.min(pdf.numPages, MAX_PAGES); n++) {
      const page = await pdf.getPage(n);
      const content = await page.getTextContent();
      pages.push(linesOf(content.items.filter(isPlaced)).join('\n'));
      page.cleanup();
    }
    return pages.join('\n');
  } finally {
    await pdf.destroy();
  }
}

/** A picture's (PNG, JPEG, WebP) text by OCR, on a worker the caller keeps. */
export async function ocrText(worker: Worker, bytes: Uint8Array): Promise<string> {
  const picture = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const { data } = await worker.recognize(picture);
  return data.text;
}
