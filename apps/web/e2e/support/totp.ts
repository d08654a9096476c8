import { createHmac } from 'node:crypto';
import { expect } from 'vitest';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

function base32Decode(secret: string): Buffer {
  let bits = '';
  for (const char of secret.replace(/=+$/, '').toUpperCase()) {
    const value = ALPHABET.indexOf(char);
    if (value < 0) throw new Error(`not base32: ${char}`);
    bits += value.toString(2).padStart(5, '0');
  }
  const bytes: number[] = [];
  for (let i = 0; i + 8 <= bits.length; i += 8)
    bytes.push(Number.parseInt(bits.slice(i, i + 8), 2));
  return Buffer.from(bytes);
}

/** RFC 6238 TOTP (HMAC-SHA1, 30 s steps, 6 digits), as an authenticator app computes it. */
export function totp(secret: string, atMs = Date.now()): string {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(atMs / 30_000)));
  const mac = createHmac('sha1', base32Decode(secret)).update(counter).digest();
  const offset = (mac[mac.length - 1] ?? 0) & 0x0f;
  return String((mac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000).padStart(6, '0');
}

/**
 * The latest time step a code was handed out for, by test file: each file starts its own
 * product, whose server remembers the steps it took, and a worker runs several files one after
 * another (the e2e project is not isolated), so a step one file used is free in the next.
 */
const lastSteps = new Map<string, number>();

/**
 * How long a code handed out stays good at the server at least. The way from here to its check
 * (typing, the request, the password's hashing on a machine running several products and
 * browsers at once) took over 3 s in CI, where a code with 3 s left then failed a sign-in.
 */
const MARGIN_MS = 15_000;

/**
 * A code the server will take: from a time step later than any used before in this file (the
 * server takes each step once, in order) and within the one step of drift either way it allows
 * (an authenticator whose clock is a little off), still valid there for MARGIN_MS more. So a
 * file has two or three codes at once (the previous step's in the first half of a step, the
 * current and next step's) before it waits for time to pass.
 */
export async function freshTotp(secret: string): Promise<string> {
  const file = expect.getState().testPath ?? '';
  for (;;) {
    const lastStep = lastSteps.get(file) ?? Number.NEGATIVE_INFINITY;
    const now = Date.now();
    const current = Math.floor(now / 30_000);
    for (let step = Math.max(lastStep + 1, current - 1); step <= current + 1; step++) {
      // The server stops taking `step` once its own step is past step + 1.
      if ((step + 2) * 30_000 - now > MARGIN_MS) {
        lastSteps.set(file, step);
        return totp(secret, step * 30_000);
      }
    }
    await new Promise((resolve) => setTimeout(resolve, (current + 1) * 30_000 - now + 200));
  }
}
