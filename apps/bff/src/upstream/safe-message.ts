import { errorBodySchema } from '@card-console/shared/upstream/common';
import type { UpstreamRedactor } from './upstream-redactor';

const MAX_SHOWN = 300;
const MAX_LOGGED = 500;

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
 * A message from the upstream that may be shown to a person, once redacted (the API key and
 * any long piece of it removed, card numbers masked): short, printable, no markup, no other
 * long digit run. Otherwise undefined.
 */
export function safeUpstreamMessage(message: string, redact: UpstreamRedactor): string | undefined {
  const trimmed = redact(message).trim();
  if (trimmed.length === 0 || trimmed.length > MAX_SHOWN) return undefined;
  // Printable text only: no control characters, no markup.
  if (/[\p{Cc}<>]/u.test(trimmed)) return undefined;
  if (maskDigitRuns(trimmed) !== trimmed) return undefined;
  return trimmed;
}

/**
 * Text of an upstream body fit for a log line: redacted, every long digit run masked,
 * truncated. A digit run cut by the truncation is dropped (its first digits could be most of
 * a card number); a piece of the key cut there is removed like any other, or too short to be.
 */
export function bodyForLog(text: string, redact: UpstreamRedactor): string {
  const head = maskDigitRuns(redact(text.slice(0, MAX_LOGGED)));
  return text.length > MAX_LOGGED ? head.replace(/[\d -]+$/, '') : head;
}
