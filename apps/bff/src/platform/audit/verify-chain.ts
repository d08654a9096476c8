// Walks a trail in stored order and names the first record that breaks the chain, and how.
// Checked per record, in this order: its hash against its content (changed), its id against
// the one expected next (removed, or out of order when the missing id turns up later), its
// `prevHash` against the previous record's hash (out of order: inserted, moved, or a record
// before it replaced by a forgery with a valid hash of its own).
import { chainContent, GENESIS_HASH, linkHash, type StoredAuditRecord } from './audit-chain';

export type ChainBreakKind = 'changed' | 'removed' | 'out-of-order';

export interface ChainBreak {
  /** The id of the first record that does not hold. */
  id: string;
  kind: ChainBreakKind;
  message: string;
}

export interface ChainReport {
  /** Records that hold, before the break if there is one. */
  verified: number;
  /** Records of an embedded trail written before the chain began (vouched for by the first link). */
  unchained: number;
  /** The hash of the last record that holds (GENESIS_HASH for an empty trail). */
  head: string;
  problem?: ChainBreak;
}

type Records = Iterable<StoredAuditRecord> | AsyncIterable<StoredAuditRecord>;

function isChained(record: StoredAuditRecord): record is StoredAuditRecord & {
  prevHash: string;
  hash: string;
} {
  return typeof record.prevHash === 'string' && typeof record.hash === 'string';
}

function range(from: number, to: number): string {
  return from === to ? `record ${from} was` : `records ${from}–${to} were`;
}

export async function verifyChain(records: Records): Promise<ChainReport> {
  let head = GENESIS_HASH;
  let verified = 0;
  let unchained = 0;
  let lastId = 0;
  const iterator =
    Symbol.asyncIterator in records
      ? records[Symbol.asyncIterator]()
      : (records as Iterable<StoredAuditRecord>)[Symbol.iterator]();
  const report = (id: string, kind: ChainBreakKind, message: string): ChainReport => ({
    verified,
    unchained,
    head,
    problem: { id, kind, message },
  });

  for (;;) {
    const next = await iterator.next();
    if (next.done) return { verified, unchained, head };
    const record = next.value;
    const id = Number(record.id);
    if (!isChained(record)) {
      // Before the chain began, the embedded store wrote records without links; the first
      // chained record's prevHash covers them all, so they are hashed here the same way.
      if (verified > 0) {
        return report(record.id, 'changed', `record ${record.id} was changed: its hash is gone`);
      }
      head = linkHash(head, chainContent(record));
      unchained++;
      lastId = Number.isSafeInteger(id) ? id : lastId;
      continue;
    }
    if (!holds(record)) {
      return report(
        record.id,
        'changed',
        `record ${record.id} was changed: its hash does not match its content`,
      );
    }
    const expected = lastId + 1;
    if (!Number.isSafeInteger(id) || id < expected) {
      return report(
        record.id,
        'out-of-order',
        `record ${record.id} is out of order: it comes after record ${lastId}`,
      );
    }
    if (id > expected) {
      const laterIds = await idsAfter(iterator, expected, id - 1);
      return laterIds.size > 0
        ? report(
            record.id,
            'out-of-order',
            `record ${record.id} is out of order: it comes before record ${Math.min(...laterIds)}`,
          )
        : report(
            record.id,
            'removed',
            `record ${record.id} follows a gap: ${range(expected, id - 1)} removed`,
          );
    }
    if (record.prevHash !== head) {
      const before =
        verified === 0 && unchained > 0
          ? 'the records written before the chain began (changed, removed or reordered)'
          : `record ${lastId}`;
      return report(
        record.id,
        'out-of-order',
        `record ${record.id} is out of order: it does not follow ${before}`,
      );
    }
    head = record.hash;
    lastId = id;
    verified++;
  }
}

/** Whether the record's hash matches its content (text no store would keep does not). */
function holds(record: StoredAuditRecord & { prevHash: string; hash: string }): boolean {
  try {
    return linkHash(record.prevHash, record) === record.hash;
  } catch {
    return false;
  }
}

/** Reads the rest of the trail, keeping the ids in [from, to] that turn up in it. */
async function idsAfter(
  iterator: Iterator<StoredAuditRecord> | AsyncIterator<StoredAuditRecord>,
  from: number,
  to: number,
): Promise<Set<number>> {
  const found = new Set<number>();
  for (;;) {
    const next = await iterator.next();
    if (next.done) return found;
    const id = Number(next.value.id);
    if (id >= from && id <= to) found.add(id);
  }
}
