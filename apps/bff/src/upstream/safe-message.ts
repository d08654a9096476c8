import { errorBodySchema } from '@card-console/shared/upstream/common';
import { digitRuns, joinsOnly } from '../platform/security/card-numbers';
import type { UpstreamRedactor } from './upstream-redactor';

const MAX_SHOWN = 300;
const MAX_LOGGED = 500;

/**
 * Masks runs of 12+ digits (anything that could be a card number) before text is logged or
 * shown. Runs are the card-number matcher's, grouped by whatever it knows joins digit groups
 * (dots, slashes, no-break spaces…), so every card number the audit's guard would find is gone.
 */
export function maskDigitRuns(text: string): string {
  let out = '';
  let copied = 0;
  for (const run of digitRuns(text, 12)) {
    out += `${text.slice(copied, run[0]?.start)}[redacted-number]`;
    copied = run.at(-1)?.end ?? copied;
  }
  return out + text.slice(copied);
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
  if (text.length <= MAX_LOGGED) return head;
  // The last run, when it ends at the cut or only separators stand between them, is the cut one.
  const last = digitRuns(head, 1).at(-1);
  const end = last?.at(-1)?.end ?? 0;
  return last && joinsOnly(head.slice(end)) ? head.slice(0, last[0]?.start) : head;
}
