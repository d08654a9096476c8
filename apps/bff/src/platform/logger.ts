import pino, { type DestinationStream, type Logger } from 'pino';

/**
 * Paths pino blanks before a line is written. Secrets must never be logged in the first place;
 * this is the safety net for the day someone logs a whole object.
 */
export const redactPaths = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'res.headers["set-cookie"]',
  'headers.authorization',
  'headers.cookie',
  'headers["x-api-key"]',
  'apiKey',
  '*.apiKey',
  'password',
  '*.password',
  '*.*.password',
  'totp',
  '*.totp',
  '*.*.totp',
  'pan',
  '*.pan',
  '*.*.pan',
  '*.*.*.pan',
  'cvv',
  '*.cvv',
  '*.*.cvv',
  '*.*.*.cvv',
  'body',
  '*.body',
];

export interface LoggerOptions {
  /**
   * Strings never written, whatever field or message they end up in (the card service's API
   * key): replaced in each finished line, after redaction. The safety net under the upstream
   * redactor, which removes the key from upstream text before it is logged.
   */
  secrets?: string[];
}

export function createLogger(
  level: string,
  destination?: DestinationStream,
  { secrets = [] }: LoggerOptions = {},
): Logger {
  const scrub = lineScrubber(secrets);
  const options = {
    level,
    base: { service: 'card-console-bff' },
    redact: { paths: redactPaths, censor: '[redacted]' },
    timestamp: pino.stdTimeFunctions.isoTime,
    ...(scrub ? { hooks: { streamWrite: scrub } } : {}),
  };
  return destination ? pino(options, destination) : pino(options);
}

/**
 * Replaces each secret in a written line, as it appears in JSON text (escaped, if it has
 * characters JSON escapes). A line without one costs a substring search per secret.
 */
function lineScrubber(secrets: string[]): ((line: string) => string) | undefined {
  const forms = new Set<string>();
  for (const secret of secrets) {
    if (secret.length === 0) continue;
    forms.add(secret);
    forms.add(JSON.stringify(secret).slice(1, -1));
  }
  if (forms.size === 0) return undefined;
  const list = [...forms];
  return (line) => {
    let out = line;
    for (const form of list) if (out.includes(form)) out = out.replaceAll(form, '[redacted]');
    return out;
  };
}

/**
 * Standard output, written asynchronously in batches: a synchronous write per request line was
 * a measurable share of the read path's CPU. Flushed at least every 250 ms and on exit, so a
 * quiet server's lines still appear promptly.
 */
export function createStdoutDestination(): DestinationStream & { flushSync(): void } {
  const destination = pino.destination({ dest: 1, sync: false, minLength: 4096 });
  const timer = setInterval(() => destination.flush(), 250);
  timer.unref();
  process.once('exit', () => {
    try {
      destination.flushSync();
    } catch {
      // a write was still in flight; nothing more can be done at exit
    }
  });
  return destination;
}
