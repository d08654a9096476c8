import type { AuditRecord } from '@card-console/shared/api/audit';
import { describe, expect, it } from 'vitest';
import { testPan } from '../../test/test-pan';
import {
  type ChainedAuditRecord,
  chainContent,
  GENESIS_HASH,
  linkHash,
  type StoredAuditRecord,
  sealRecord,
} from './audit-chain';
import { verifyChain } from './verify-chain';

const content = (id: number): AuditRecord => ({
  id: String(id),
  at: new Date(Date.UTC(2030, 0, 1, 0, 0, id)).toISOString(),
  actor: 'ada@example.com',
  role: 'admin',
  action: 'card.update',
  outcome: 'success',
  cardId: `card_${id}`,
  before: { name: 'Travel', maximumCents: 100 * id },
  requestId: `req-${id}`,
});

/** A valid trail of `n` records. */
function trail(n: number, from: StoredAuditRecord[] = []): ChainedAuditRecord[] {
  const out: ChainedAuditRecord[] = [];
  let prev = from.at(-1)?.hash ?? GENESIS_HASH;
  for (let i = 1; i <= n; i++) {
    const sealed = sealRecord(content(i), prev);
    out.push(sealed);
    prev = sealed.hash;
  }
  return out;
}

describe('verifyChain', () => {
  it('finds an untouched trail intact, counting its records and naming the last hash', async () => {
    const records = trail(5);
    expect(await verifyChain(records)).toEqual({
      verified: 5,
      unchained: 0,
      head: records[4]?.hash,
    });
    expect(await verifyChain([])).toEqual({ verified: 0, unchained: 0, head: GENESIS_HASH });
  });

  it('names a record whose content was edited as changed, and counts the records before it', async () => {
    const records = trail(5);
    records[2] = { ...(records[2] as ChainedAuditRecord), reason: 'added later' };
    const report = await verifyChain(records);
    expect(report.problem).toEqual({
      id: '3',
      kind: 'changed',
      message: 'record 3 was changed: its hash does not match its content',
    });
    expect(report.verified).toBe(2);
    expect(report.head).toBe(records[1]?.hash);
  });

  it('names a changed time, a changed nested value and a changed hash as changed', async () => {
    for (const edit of [
      (r: ChainedAuditRecord) => ({ ...r, at: '2031-01-01T00:00:00.000Z' }),
      (r: ChainedAuditRecord) => ({ ...r, before: { name: 'Travel', maximumCents: 1 } }),
      (r: ChainedAuditRecord) => ({ ...r, hash: 'f'.repeat(64) }),
      (r: ChainedAuditRecord) => ({ ...r, id: '7' }),
      (r: ChainedAuditRecord) => {
        const { prevHash: _p, hash: _h, ...bare } = r;
        return bare as ChainedAuditRecord;
      },
    ]) {
      const records = trail(4);
      records[1] = edit(records[1] as ChainedAuditRecord);
      expect((await verifyChain(records)).problem).toMatchObject({
        id: records[1].id,
        kind: 'changed',
      });
    }
  });

  it('names a record that lost just its hash, or just its link to the one before, as changed: its hash is gone', async () => {
    for (const strip of [
      (r: ChainedAuditRecord) => {
        const { hash: _h, ...rest } = r;
        return rest as ChainedAuditRecord;
      },
      (r: ChainedAuditRecord) => {
        const { prevHash: _p, ...rest } = r;
        return rest as ChainedAuditRecord;
      },
    ]) {
      const records = trail(3);
      records[1] = strip(records[1] as ChainedAuditRecord);
      expect((await verifyChain(records)).problem).toEqual({
        id: '2',
        kind: 'changed',
        message: 'record 2 was changed: its hash is gone',
      });
    }
  });

  it('names a first record that does not start from 64 zeros as out of order after record 0, the start', async () => {
    const records = trail(2);
    records[0] = sealRecord(content(1), 'a'.repeat(64));
    expect((await verifyChain(records)).problem).toEqual({
      id: '1',
      kind: 'out-of-order',
      message: 'record 1 is out of order: it does not follow record 0',
    });
  });

  it('still names a gap as a removal when a copy of an earlier record turns up after it', async () => {
    const [a, b, , d, e] = trail(5) as ChainedAuditRecord[];
    expect((await verifyChain([a, b, d, e, a] as ChainedAuditRecord[])).problem).toEqual({
      id: '4',
      kind: 'removed',
      message: 'record 4 follows a gap: record 3 was removed',
    });
  });

  it('names the record after a deleted one (or the first left) as following a gap', async () => {
    const records = trail(6);
    expect((await verifyChain(records.filter((r) => r.id !== '3'))).problem).toEqual({
      id: '4',
      kind: 'removed',
      message: 'record 4 follows a gap: record 3 was removed',
    });
    expect((await verifyChain(records.slice(2))).problem).toEqual({
      id: '3',
      kind: 'removed',
      message: 'record 3 follows a gap: records 1–2 were removed',
    });
  });

  it('names two swapped records as out of order, not as a removal', async () => {
    const [a, b, c, d, e] = trail(5);
    const report = await verifyChain([a, b, d, c, e] as ChainedAuditRecord[]);
    expect(report.problem).toEqual({
      id: '4',
      kind: 'out-of-order',
      message: 'record 4 is out of order: it comes before record 3',
    });
  });

  it('names the record after a forgery that carries a valid hash of its own as out of order', async () => {
    const records = trail(5);
    const second = records[1] as ChainedAuditRecord;
    records[2] = sealRecord({ ...content(3), reason: 'forged' }, second.hash);
    expect((await verifyChain(records)).problem).toEqual({
      id: '4',
      kind: 'out-of-order',
      message: 'record 4 is out of order: it does not follow record 3',
    });
  });

  it('names a record inserted after its namesake, and one re-sealed in a new place', async () => {
    const records = trail(4);
    const third = records[2] as ChainedAuditRecord;
    const inserted = sealRecord({ ...content(3), reason: 'backdated' }, third.hash);
    const withInsert = [...records.slice(0, 3), inserted, ...records.slice(3)];
    expect((await verifyChain(withInsert)).problem).toMatchObject({
      id: '3',
      kind: 'out-of-order',
      message: 'record 3 is out of order: it comes after record 3',
    });
    // Records 2 and 3 exchanged by a forger who re-sealed each with its new id.
    const [one, two, three, four] = records as [
      ChainedAuditRecord,
      ChainedAuditRecord,
      ChainedAuditRecord,
      ChainedAuditRecord,
    ];
    const moved = sealRecord({ ...three, id: '2' }, three.prevHash);
    const back = sealRecord({ ...two, id: '3' }, moved.hash);
    expect((await verifyChain([one, moved, back, four])).problem).toEqual({
      id: '2',
      kind: 'out-of-order',
      message: 'record 2 is out of order: it does not follow record 1',
    });
  });

  it('names the first of several missing records that turn up later', async () => {
    const [a, b, c, d, e] = trail(5) as [
      ChainedAuditRecord,
      ChainedAuditRecord,
      ChainedAuditRecord,
      ChainedAuditRecord,
      ChainedAuditRecord,
    ];
    expect((await verifyChain([a, d, e, c, b])).problem).toEqual({
      id: '4',
      kind: 'out-of-order',
      message: 'record 4 is out of order: it comes before record 2',
    });
    // Record 2 deleted and 3 moved after 4: 3 is the last id of the gap, and it turns up.
    expect((await verifyChain([a, d, c, e])).problem).toEqual({
      id: '4',
      kind: 'out-of-order',
      message: 'record 4 is out of order: it comes before record 3',
    });
  });

  it('names a record whose id is not a whole number as out of order', async () => {
    const records = trail(3);
    const second = records[1] as ChainedAuditRecord;
    for (const id of ['two', '2.5', '1e400']) {
      records[2] = sealRecord({ ...content(3), id }, second.hash);
      expect((await verifyChain(records)).problem).toEqual({
        id,
        kind: 'out-of-order',
        message: `record ${id} is out of order: it comes after record 2`,
      });
    }
  });

  it('names a record holding text no store keeps (a lone surrogate) as changed, not as an error', async () => {
    const records = trail(3);
    records[1] = { ...(records[1] as ChainedAuditRecord), reason: 'a\uD800b' };
    expect((await verifyChain(records)).problem).toEqual({
      id: '2',
      kind: 'changed',
      message: 'record 2 was changed: its hash does not match its content',
    });
  });

  it('reads the trail from an async source too', async () => {
    const records = trail(3);
    async function* source() {
      yield* records;
    }
    expect((await verifyChain(source())).verified).toBe(3);
  });

  it('vouches for records written before the chain began through the first link after them', async () => {
    const legacy: StoredAuditRecord[] = [content(1), content(2)];
    let head = GENESIS_HASH;
    for (const record of legacy) head = linkHash(head, chainContent(record));
    const third = sealRecord(content(3), head);
    const chained = [third, sealRecord(content(4), third.hash)];
    expect(await verifyChain([...legacy, ...chained])).toEqual({
      verified: 2,
      unchained: 2,
      head: chained[1]?.hash,
    });
    const edited = [{ ...content(1), actor: 'someone-else@example.com' }, content(2)];
    expect((await verifyChain([...edited, ...chained])).problem).toEqual({
      id: '3',
      kind: 'out-of-order',
      message:
        'record 3 is out of order: it does not follow the records written before the chain began (changed, removed or reordered)',
    });
  });
});

describe('verifyChain over a trail begun before the chain', () => {
  /** Two records from before the chain, then `n` chained ones after them. */
  function mixedTrail(n: number) {
    const legacy: StoredAuditRecord[] = [content(1), content(2)];
    let head = GENESIS_HASH;
    for (const record of legacy) head = linkHash(head, chainContent(record));
    const chained: ChainedAuditRecord[] = [];
    for (let id = 3; id < 3 + n; id++) {
      const sealed = sealRecord(content(id), head);
      chained.push(sealed);
      head = sealed.hash;
    }
    return { legacy, chained };
  }

  it('names the chained record after a forgery by its number once the chain has begun', async () => {
    const { legacy, chained } = mixedTrail(3);
    const third = chained[0] as ChainedAuditRecord;
    chained[1] = sealRecord({ ...content(4), reason: 'forged' }, third.hash);
    const report = await verifyChain([...legacy, ...chained]);
    expect(report).toMatchObject({ verified: 2, unchained: 2 });
    expect(report.problem).toEqual({
      id: '5',
      kind: 'out-of-order',
      message: 'record 5 is out of order: it does not follow record 4',
    });
  });

  it('counts records before the chain by their ids: a gap after them is a removal', async () => {
    const { legacy, chained } = mixedTrail(2);
    expect((await verifyChain([legacy[0] as StoredAuditRecord, ...chained])).problem).toEqual({
      id: '3',
      kind: 'removed',
      message: 'record 3 follows a gap: record 2 was removed',
    });
  });

  it('counts on past an unchained record with no numeric id from the one before it', async () => {
    const legacy: StoredAuditRecord[] = [content(1), { ...content(2), id: 'legacy-b' }];
    let head = GENESIS_HASH;
    for (const record of legacy) head = linkHash(head, chainContent(record));
    const next = sealRecord(content(2), head);
    expect(await verifyChain([...legacy, next])).toEqual({
      verified: 1,
      unchained: 2,
      head: next.hash,
    });
    const afterGap = sealRecord(content(3), head);
    expect((await verifyChain([...legacy, afterGap])).problem).toEqual({
      id: '3',
      kind: 'removed',
      message: 'record 3 follows a gap: record 2 was removed',
    });
  });
});

describe('sealRecord', () => {
  it('keeps text every store can hold: U+0000 and lone surrogates become U+FFFD', async () => {
    const sealed = sealRecord({ ...content(1), reason: 'a\u0000b\uD800c' }, GENESIS_HASH);
    expect(sealed.reason).toBe('a\uFFFDb\uFFFDc');
    expect((await verifyChain([sealed])).problem).toBeUndefined();
  });

  it('refuses a record holding a card number before hashing it', () => {
    expect(() => sealRecord({ ...content(1), reason: `card ${testPan()}` }, GENESIS_HASH)).toThrow(
      /card number/,
    );
  });

  it('makes the hash depend on the previous hash and on the id', () => {
    const a = sealRecord(content(1), GENESIS_HASH);
    expect(sealRecord(content(1), 'a'.repeat(64)).hash).not.toBe(a.hash);
    expect(sealRecord({ ...content(1), id: '2' }, GENESIS_HASH).hash).not.toBe(a.hash);
    expect(a.hash).toMatch(/^[0-9a-f]{64}$/);
  });
});
