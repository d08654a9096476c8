// The chain's head: the newest record's id and hash. The chain shows a record changed, removed
// from the middle or moved, but not records cut from the end (the shorter trail is a valid
// chain), nor a trail rewritten and re-hashed by someone who can write the table. A head kept
// where the database's administrators cannot write (a log shipped elsewhere, a ticket) shows
// both: the trail must still hold that record with that hash. So every replica logs the head
// each hour (its id and hash only, never a record's content), `pnpm audit-log head` prints it,
// and `pnpm audit-log verify --head <id>:<hash>` checks the trail still reaches it.
import type { Logger } from 'pino';
import { GENESIS_HASH, type StoredAuditRecord } from './audit-chain';

export interface AuditHead {
  /** The newest record's id ('0' for an empty trail). */
  id: string;
  /** Its hash (GENESIS_HASH for an empty trail). */
  hash: string;
}

/** A store that can say where its chain ends without walking it. */
export interface AuditHeadSource {
  head(): Promise<AuditHead>;
}

export const EMPTY_HEAD: AuditHead = { id: '0', hash: GENESIS_HASH };

/** How a head is written to be kept and given back: `<id>:<hash>`. */
export const formatHead = (head: AuditHead) => `${head.id}:${head.hash}`;

/** `<id>:<hash>` as `formatHead` writes it, or undefined. */
export function parseHead(text: string): AuditHead | undefined {
  const match = /^(\d{1,15}):([0-9a-f]{64})$/.exec(text.trim());
  return match ? { id: String(Number(match[1])), hash: match[2] as string } : undefined;
}

/** What a walk noted: the hashes of the records asked about, and the last record's id. */
export interface NotedWalk {
  records: AsyncIterable<StoredAuditRecord>;
  seen: Map<string, string>;
  /** The id of the last record walked ('0' before any). */
  lastId(): string;
}

/**
 * Passes the records through unchanged, noting the hash of each one whose id is in `wanted`:
 * the verifier walks the chain once and the kept heads are checked on the same walk.
 */
export function noteHashes(
  records: AsyncIterable<StoredAuditRecord>,
  wanted: readonly AuditHead[],
): NotedWalk {
  const ids = new Set(wanted.map((head) => head.id));
  const seen = new Map<string, string>();
  let last = EMPTY_HEAD.id;
  return {
    seen,
    lastId: () => last,
    records: (async function* () {
      for await (const record of records) {
        if (ids.has(record.id) && typeof record.hash === 'string') seen.set(record.id, record.hash);
        last = record.id;
        yield record;
      }
    })(),
  };
}

/**
 * Why the trail no longer reaches `kept`, or undefined when it does (the record is there with
 * that hash). `seen` is what `noteHashes` noted on a walk that found the chain intact; `head` is
 * where that walk ended.
 */
export function missedHead(
  kept: AuditHead,
  seen: ReadonlyMap<string, string>,
  head: AuditHead,
): string | undefined {
  if (kept.id === EMPTY_HEAD.id) return undefined;
  const now = seen.get(kept.id);
  if (now === kept.hash) return undefined;
  if (now === undefined) {
    return `the kept head, record ${kept.id}, is not in the trail, which ends at record ${head.id}: records from ${Number(head.id) + 1} on were removed from the end (or the trail was replaced)`;
  }
  return `record ${kept.id} no longer has the kept hash ${kept.hash} (now ${now}): the trail was rewritten from that record or before it`;
}

/**
 * Logs the head at once and then every `everyMs` (an hour by default), so the log, shipped
 * where the database's administrators cannot write, keeps it. Returns the stop.
 */
export function logHeadEvery(options: {
  source: AuditHeadSource;
  logger: Pick<Logger, 'info' | 'warn'>;
  everyMs?: number;
}): () => void {
  const { source, logger } = options;
  const log = () =>
    source.head().then(
      (head) => logger.info({ auditHead: formatHead(head) }, 'audit trail head'),
      (error: unknown) =>
        logger.warn({ err: error }, 'audit trail head not logged: the trail could not be read'),
    );
  void log();
  const timer = setInterval(() => void log(), options.everyMs ?? 60 * 60_000);
  timer.unref();
  return () => clearInterval(timer);
}
