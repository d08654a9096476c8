import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Opaque cursors: base64url(JSON [kind, filter hash, position]) + "." + base64url(HMAC-SHA256, 16 bytes).
 * The payload carries the list kind, a hash of the filter it was issued for and the keyset
 * position; a cursor that fails the signature, or belongs to another list or filter, is
 * rejected (the caller answers 400).
 */
export interface CursorCodec {
  encode(kind: string, filter: unknown, position: unknown): string;
  /** The position, or undefined when the cursor is forged, damaged or from another filter. */
  decode(cursor: string, kind: string, filter: unknown): unknown;
}

const SIG_BYTES = 16;

/** A walk asks with the same filter page after page: its hash is worked out once. */
const recentHashes = new Map<string, string>();
const RECENT_HASHES = 256;

function filterHash(filter: unknown): string {
  const text = JSON.stringify(filter);
  let hash = recentHashes.get(text);
  if (hash === undefined) {
    hash = createHash('sha256').update(text).digest('base64url').slice(0, 12);
    if (recentHashes.size >= RECENT_HASHES) recentHashes.clear();
    recentHashes.set(text, hash);
  }
  return hash;
}

export function createCursorCodec(secret: Buffer = randomBytes(32)): CursorCodec {
  const sign = (data: string) =>
    createHmac('sha256', secret).update(data).digest().subarray(0, SIG_BYTES);
  return {
    encode(kind, filter, position) {
      const data = Buffer.from(JSON.stringify([kind, filterHash(filter), position]));
      const payload = data.toString('base64url');
      return `${payload}.${sign(payload).toString('base64url')}`;
    },
    decode(cursor, kind, filter) {
      const [payload, sig, extra] = cursor.split('.');
      if (!payload || !sig || extra !== undefined) return undefined;
      const given = Buffer.from(sig, 'base64url');
      // Canonical encoding only: the last base64 character has spare bits a tamperer could flip.
      if (given.length !== SIG_BYTES || given.toString('base64url') !== sig) return undefined;
      if (!timingSafeEqual(given, sign(payload))) return undefined;
      try {
        const parsed: unknown = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
        if (!Array.isArray(parsed) || parsed.length !== 3) return undefined;
        const [k, f, p] = parsed as unknown[];
        return k === kind && f === filterHash(filter) ? p : undefined;
      } catch {
        return undefined;
      }
    },
  };
}
