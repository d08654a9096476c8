import { createHmac, timingSafeEqual } from 'node:crypto';

// The signature a webhook carries (README.md beside this file shows receivers how to check it):
// `Card-Console-Signature: v1=<hex HMAC-SHA256 of "<timestamp>.<raw body>">`, the timestamp
// being `Card-Console-Timestamp` in Unix seconds, so a captured request cannot be replayed
// later than the receiver's tolerance.

export function signatureFor(secret: string, timestamp: number, rawBody: string): string {
  const hex = createHmac('sha256', secret).update(`${timestamp}.${rawBody}`).digest('hex');
  return `v1=${hex}`;
}

/**
 * What a receiver does: whether `header` holds a v1 signature of the body at that timestamp,
 * and the timestamp is within `toleranceSeconds` of `nowSeconds`. Used by the tests.
 */
export function verifySignature(input: {
  secret: string;
  header: string;
  timestamp: string;
  rawBody: string;
  nowSeconds: number;
  toleranceSeconds?: number;
}): boolean {
  const timestamp = Number(input.timestamp);
  if (!/^\d+$/.test(input.timestamp)) return false;
  if (Math.abs(input.nowSeconds - timestamp) > (input.toleranceSeconds ?? 300)) return false;
  const expected = Buffer.from(signatureFor(input.secret, timestamp, input.rawBody));
  // Several comma-separated signatures may come while a secret is being rotated.
  return input.header.split(',').some((candidate) => {
    const given = Buffer.from(candidate.trim());
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}
