import { createHash } from 'node:crypto';
import type { AuditRecord } from '@card-console/shared/api/audit';
import canonicalize from 'canonicalize';
import { describe, expect, it } from 'vitest';
import { chainContent, GENESIS_HASH, linkHash, sealRecord } from './audit-chain';

const record = (id: number): AuditRecord => ({
  id: String(id),
  at: new Date(Date.UTC(2030, 0, 1, 0, 0, id)).toISOString(),
  actor: 'ada@example.com',
  role: 'admin',
  action: 'card.update',
  outcome: 'success',
  cardId: `card_${id}`,
  before: { name: 'Travel – €', maximumCents: 100 * id },
  after: { name: 'Travel', minimumCents: 0 },
  requestId: `req-${id}`,
});

/** The hash as an auditor recomputes it from the documented rule, with nothing of ours. */
const outsideHash = (prevHash: string, content: unknown) =>
  createHash('sha256')
    .update(`${prevHash}${canonicalize(content)}`, 'utf8')
    .digest('hex');

describe('the audit chain', () => {
  it('starts from 64 zeros, and hashes each record as SHA-256 of the previous hash and its RFC 8785 JSON, so anyone can recompute it', () => {
    expect(GENESIS_HASH).toBe('0'.repeat(64));
    const first = sealRecord(record(1), GENESIS_HASH);
    const second = sealRecord(record(2), first.hash);
    expect(first).toEqual({ ...record(1), prevHash: '0'.repeat(64), hash: expect.any(String) });
    expect(first.hash).toBe(outsideHash('0'.repeat(64), record(1)));
    expect(second).toEqual({ ...record(2), prevHash: first.hash, hash: expect.any(String) });
    expect(second.hash).toBe(outsideHash(first.hash, record(2)));
    expect(linkHash(first.hash, second)).toBe(second.hash);
  });

  it('replaces every lone surrogate, of either half, at either end of its range and of the text, and U+0000, with U+FFFD; whole pairs stay', () => {
    const text = '\uDC00a\uDFFFb\uD800\uDC00c\uDBFF\uDFFF😀d\u0000e\uD800f\uDBFF';
    const sealed = sealRecord({ ...record(1), reason: text }, GENESIS_HASH);
    expect(sealed.reason).toBe('\uFFFDa\uFFFDb\uD800\uDC00c\uDBFF\uDFFF😀d\uFFFDe\uFFFDf\uFFFD');
    expect(sealed.hash).toBe(outsideHash(GENESIS_HASH, { ...record(1), reason: sealed.reason }));
  });

  it('makes text storable however deep it sits, in objects and in lists, keeping lists as lists', () => {
    // Records read back from a trail are whatever JSON it holds; the chain hashes any of it.
    const stored = {
      ...record(1),
      before: { name: 'a\u0000b', maximumCents: 5 },
      tags: ['x\u0000', 'y', ['\uDC00']],
    } as AuditRecord;
    expect(chainContent(stored)).toEqual({
      ...record(1),
      before: { name: 'a\uFFFDb', maximumCents: 5 },
      tags: ['x\uFFFD', 'y', ['\uFFFD']],
    });
  });

  it('seals a record with a member left undefined exactly as one without it', () => {
    const bare = sealRecord(record(1), GENESIS_HASH);
    const withUndefined = sealRecord(
      {
        ...record(1),
        reason: undefined,
        before: { name: 'Travel – €', maximumCents: 100, minimumCents: undefined },
      },
      GENESIS_HASH,
    );
    expect(withUndefined).toStrictEqual(bare);
  });

  it('hashes the content only: the link fields a stored record carries are left out', () => {
    const sealed = sealRecord(record(1), GENESIS_HASH);
    expect(linkHash(GENESIS_HASH, sealed)).toBe(sealed.hash);
    expect(linkHash(GENESIS_HASH, { ...sealed, prevHash: 'f'.repeat(64), hash: 'x' })).toBe(
      sealed.hash,
    );
    expect(chainContent(sealed)).toStrictEqual(record(1));
  });
});
