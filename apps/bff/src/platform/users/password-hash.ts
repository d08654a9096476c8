// scrypt password hashes, encoded `scrypt$N$r$p$salt$hash` (salt and hash base64url) so the
// cost can rise later without invalidating stored hashes.
import { randomBytes, type ScryptOptions, scrypt, timingSafeEqual } from 'node:crypto';

export interface ScryptParams {
  N: number;
  r: number;
  p: number;
}

/**
 * What `pnpm users add` writes: the OWASP Password Storage Cheat Sheet lists N=2^17, r=8,
 * p=1 (128 MiB per hash) and N=2^13, r=8, p=10 (8 MiB) among settings of equal strength. We
 * take the 8 MiB one: libuv runs up to four hashes at once, so a burst of sign-ins costs
 * 32 MiB rather than half a gigabyte, and one sign-in no longer lifts the BFF's peak memory
 * by a quarter (bench/report.md). Each hash records its own cost, so older ones still verify.
 */
export const productionScrypt: ScryptParams = { N: 2 ** 13, r: 8, p: 10 };
/** The demo password is public anyway; a cheaper cost keeps demo start-up and tests quick. */
export const demoScrypt: ScryptParams = { N: 2 ** 14, r: 8, p: 1 };

const keyLength = 32;
const encoded =
  /^scrypt\$(\d{1,8})\$(\d{1,3})\$(\d{1,3})\$([A-Za-z0-9_-]{16,64})\$([A-Za-z0-9_-]{32,128})$/;

function derive(
  password: string,
  salt: Buffer,
  params: ScryptParams,
  length: number,
): Promise<Buffer> {
  const options: ScryptOptions = {
    N: params.N,
    r: params.r,
    p: params.p,
    maxmem: 256 * params.N * params.r + 16 * 1024 * 1024,
  };
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFKC'), salt, length, options, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });
}

export async function hashPassword(password: string, params = productionScrypt): Promise<string> {
  const salt = randomBytes(16);
  const hash = await derive(password, salt, params, keyLength);
  return [
    'scrypt',
    params.N,
    params.r,
    params.p,
    salt.toString('base64url'),
    hash.toString('base64url'),
  ].join('$');
}

export function isPasswordHash(value: string): boolean {
  const match = encoded.exec(value);
  if (!match) return false;
  const N = Number(match[1]);
  return N >= 2 ** 10 && N <= 2 ** 20 && (N & (N - 1)) === 0;
}

export function hashParams(stored: string): ScryptParams | undefined {
  const match = encoded.exec(stored);
  if (!match) return undefined;
  return { N: Number(match[1]), r: Number(match[2]), p: Number(match[3]) };
}

/** Constant-time check; a malformed stored hash is simply a mismatch. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const match = encoded.exec(stored);
  if (!match || !isPasswordHash(stored)) return false;
  const params = { N: Number(match[1]), r: Number(match[2]), p: Number(match[3]) };
  const salt = Buffer.from(match[4] ?? '', 'base64url');
  const expected = Buffer.from(match[5] ?? '', 'base64url');
  const actual = await derive(password, salt, params, expected.length);
  return timingSafeEqual(actual, expected);
}
