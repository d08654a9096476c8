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

export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options = {
    level,
    base: { service: 'card-console-bff' },
    redact: { paths: redactPaths, censor: '[redacted]' },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  return destination ? pino(options, destination) : pino(options);
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
