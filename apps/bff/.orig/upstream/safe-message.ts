import { errorBodySchema } from '@card-console/shared/upstream/common';

const MAX_SHOWN = 300;

/** Masks runs of 12+ digits (anything that could be a card number) before text is logged or shown. */
const DIGIT_RUN = /\d(?:[ -]?\d){11,}/g;

export function maskDigitRuns(text: string): string {
  return text.replace(DIGIT_RUN, '[redacted-number]');
}

/** The upstream's error body if it has the documented shape, else undefined. */
export function parseErrorBody(text: string): { code: string; message: string } | undefined {
  try {
    const result = errorBodySchema.safeParse(JSON.parse(text));
    return result.success ? { code: result.data.code, message: result.data.message } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A message from the upstream that may be shown to a person: short, printable, no markup,
 * nothing that looks like a card number. Otherwise undefined.
 */
export function safeUpstreamMessage(message: string): string | undefined {
  const trimmed = message.trim();
  if (trimmed.length === 0 || trimmed.length > MAX_SHOWN) return undefined;
  // Printable text only: no control characters, no markup.
  if (/[\p{Cc}<>]/u.test(trimmed)) return undefined;
  if (maskDigitRuns(trimmed) !== trimmed) return undefined;
  return trimmed;
}

/** Text of an upstream body fit for a log line: truncated, digit runs masked. */
export function bodyForLog(text: string): string {
  return maskDigitRuns(text.slice(0, 500));
}
