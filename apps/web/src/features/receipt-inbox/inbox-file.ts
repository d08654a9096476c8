/**
 * The largest file the BFF takes as a receipt (`RECEIPT_MAX_BYTES` in the shared notes API),
 * repeated here so its zod schemas stay out of this screen's download; the inbox's test holds
 * them equal.
 */
export const INBOX_FILE_MAX_BYTES = 10 * 1024 * 1024;

/** What the file picker offers: pictures and PDFs (the BFF decides by the bytes, not this). */
export const INBOX_ACCEPT =
  'image/jpeg,image/png,image/webp,image/heic,image/heif,application/pdf,.heic,.heif,.pdf';

const TYPE_NAMES: Record<string, string> = {
  'image/jpeg': 'JPEG',
  'image/png': 'PNG',
  'image/webp': 'WebP',
  'image/heic': 'HEIC',
  'image/heif': 'HEIF',
  'application/pdf': 'PDF',
};

/** "PNG", "PDF"; the media type itself for one not named. */
export function typeName(mediaType: string): string {
  return TYPE_NAMES[mediaType] ?? mediaType;
}

/** Pictures a browser shows: HEIC and HEIF mostly not, so they and PDFs are downloads. */
export function isPreviewable(mediaType: string): boolean {
  return ['image/jpeg', 'image/png', 'image/webp'].includes(mediaType);
}

/** "812 bytes", "48 KB", "3.2 MB". */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} byte${bytes === 1 ? '' : 's'}`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${Number((bytes / (1024 * 1024)).toFixed(1))} MB`;
}

/** Why a file is not sent at all, or undefined when the BFF may judge it. */
export function fileProblem(file: File): string | undefined {
  if (file.size > INBOX_FILE_MAX_BYTES) {
    return `It is ${formatBytes(file.size)}; a receipt can be at most ${formatBytes(INBOX_FILE_MAX_BYTES)}. It was not sent.`;
  }
  if (file.size === 0) return 'The file is empty. It was not sent.';
  return undefined;
}
