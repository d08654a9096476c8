// The audit trail's hash chain. Each record carries `prevHash` (the hash of the record before
// it; 64 zeros for the first) and `hash` = SHA-256(prevHash ‖ the record in RFC 8785 canonical
// JSON, its `id` and `at` included). Changing, removing or moving a record therefore breaks
// the link of the record itself or of the one after it (`verify-chain.ts` says which).
import { createHash } from 'node:crypto';
import type { AuditRecord } from '@card-console/shared/api/audit';
import canonicalize from 'canonicalize';
import { assertNoCardSecrets } from './card-secrets';

export const GENESIS_HASH = '0'.repeat(64);

export interface ChainLink {
  prevHash: string;
  hash: string;
}

export type ChainedAuditRecord = AuditRecord & ChainLink;

/**
 * A record as a store hands it to the verifier: chained, or (only in an embedded trail begun
 * before the chain existed) without the link fields.
 */
export type StoredAuditRecord = AuditRecord & Partial<ChainLink>;

/** Anything that can walk its whole trail in order, for `pnpm audit-log verify`. */
export interface AuditChainSource {
  records(): AsyncIterable<StoredAuditRecord>;
}

// U+0000 cannot be stored in PostgreSQL text and a lone surrogate cannot be encoded as UTF-8,
// so every store would keep something other than what was hashed: replace both first.
// biome-ignore lint/suspicious/noControlCharactersInRegex: U+0000 is what must be found.
const unstorable = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

function storable<T>(value: T): T {
  if (typeof value === 'string') return value.replace(unstorable, '\uFFFD') as T;
  if (Array.isArray(value)) return value.map(storable) as T;
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value)) {
      if (inner !== undefined) out[key] = storable(inner);
    }
    return out as T;
  }
  return value;
}

/** The record's own fields, as hashed: no link fields, no undefined members. */
export function chainContent(record: StoredAuditRecord): AuditRecord {
  const { prevHash: _prev, hash: _hash, ...content } = record;
  return storable(content);
}

function digest(prevHash: string, canonical: string): string {
  return createHash('sha256').update(prevHash).update(canonical).digest('hex');
}

/**
 * The hash a record must carry when it follows a record whose hash is `prevHash`, over its
 * fields exactly as given (the link fields left out). Throws on a lone surrogate, which no
 * sealed record holds.
 */
export function linkHash(prevHash: string, record: StoredAuditRecord): string {
  return digest(prevHash, canonicalize(withoutLink(record)) ?? '');
}

/**
 * Makes the next link: the record with text every store can keep, its hash, and the check
 * that it holds no card number or secret field (refused before anything is written).
 */
export function sealRecord(record: AuditRecord, prevHash: string): ChainedAuditRecord {
  const content = chainContent(record);
  assertNoCardSecrets(content);
  const canonical = canonicalize(content) ?? '';
  return { ...content, prevHash, hash: digest(prevHash, canonical) };
}

/** The record without its link fields: what the API shows. */
export function withoutLink(record: StoredAuditRecord): AuditRecord {
  const { prevHash: _prev, hash: _hash, ...content } = record;
  return content;
}
