// The embedded audit trail (demo mode, or no DATABASE_URL): JSON lines in DATA_DIR, chained
// like the PostgreSQL one. Each append opens the file with 'a', writes one line and fsyncs
// before resolving, so an acknowledged record survives a crash; appends go through one
// promise chain so concurrent writers never interleave. This process is the only writer, so
// records are also kept in memory for `list`. Ids count the records (1, 2, …) and the cursor
// is the id of the last record seen, so pages stay stable while new records arrive.
import { mkdir, open } from 'node:fs/promises';
import { join } from 'node:path';
import {
  type AuditFilter,
  type AuditRecord,
  auditRecordSchema,
} from '@card-console/shared/api/audit';
import type { Clock } from '../../core/clock';
import {
  type AuditChainSource,
  chainContent,
  GENESIS_HASH,
  linkHash,
  type StoredAuditRecord,
  sealRecord,
  withoutLink,
} from './audit-chain';
import { matchesFilter } from './audit-filter';
import { type AuditHead, type AuditHeadSource, EMPTY_HEAD } from './audit-head';
import type { AuditStore, NewAuditRecord } from './audit-store';
import { readTrailFile } from './jsonl-trail-file';

interface TrailState {
  records: AuditRecord[];
  /** The hash the next record links to. */
  head: string;
  lastId: number;
  /** Time of the newest record: a record is never stamped before the one it follows. */
  lastAt: number;
  /** The file ends in a torn line (crash mid-write): start the next record on a new line. */
  needsNewline: boolean;
}

export class JsonlAuditStore implements AuditStore, AuditChainSource, AuditHeadSource {
  readonly path: string;
  private state: TrailState | undefined;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly dataDir: string,
    private readonly clock: Clock,
  ) {
    this.path = join(dataDir, 'audit.jsonl');
  }

  async append(record: NewAuditRecord): Promise<AuditRecord> {
    const [written] = await this.appendMany([record]);
    return written as AuditRecord;
  }

  appendMany(records: readonly NewAuditRecord[]): Promise<AuditRecord[]> {
    const run = this.queue.then(() => this.write(records));
    this.queue = run.catch(() => undefined);
    return run;
  }

  async list(options: { cursor?: string; limit: number; filter?: AuditFilter }) {
    await this.queue;
    const { records } = await this.load();
    const before = options.cursor === undefined ? Number.POSITIVE_INFINITY : Number(options.cursor);
    const items: AuditRecord[] = [];
    for (let i = records.length - 1; i >= 0; i--) {
      const record = records[i] as AuditRecord;
      if (Number(record.id) >= before || !matchesFilter(record, options.filter)) continue;
      if (items.length === options.limit) return { items, nextCursor: items.at(-1)?.id ?? '' };
      items.push(record);
    }
    return { items };
  }

  /** Where the chain ends: the newest record's id and the hash the next one links to. */
  async head(): Promise<AuditHead> {
    await this.queue;
    const { lastId, head } = await this.load();
    return lastId === 0 ? EMPTY_HEAD : { id: String(lastId), hash: head };
  }

  /** The file as it is on disk, line by line (not the copy in memory): for the verifier. */
  async *records(): AsyncIterable<StoredAuditRecord> {
    await this.queue;
    yield* (await readTrailFile(this.path)).records;
  }

  /** The records chained after the trail's head, written with one write and one sync. */
  private async write(inputs: readonly NewAuditRecord[]): Promise<AuditRecord[]> {
    const state = await this.load();
    const at = Math.max(this.clock.now(), state.lastAt);
    // Every record checked before any is written: one refused, none is.
    let head = state.head;
    const sealed = inputs.map((input, i) => {
      const record = auditRecordSchema.parse({
        ...input,
        id: String(state.lastId + 1 + i),
        at: new Date(at).toISOString(),
      });
      const link = sealRecord(record, head);
      head = link.hash;
      return link;
    });
    const line = `${state.needsNewline ? '\n' : ''}${sealed.map((s) => JSON.stringify(s)).join('\n')}\n`;
    await mkdir(this.dataDir, { recursive: true, mode: 0o700 });
    const file = await open(this.path, 'a', 0o600);
    try {
      await file.write(line);
      await file.sync();
    } finally {
      await file.close();
    }
    const written = sealed.map(withoutLink);
    state.records.push(...written);
    state.head = head;
    state.lastId += sealed.length;
    state.lastAt = at;
    state.needsNewline = false;
    return written;
  }

  private async load(): Promise<TrailState> {
    if (this.state) return this.state;
    const file = await readTrailFile(this.path);
    const state: TrailState = {
      records: [],
      head: GENESIS_HASH,
      lastId: 0,
      lastAt: 0,
      needsNewline: file.endsTorn,
    };
    for (const stored of file.records) {
      // A file begun before the chain: its records are linked virtually, as the verifier
      // does, and the first chained record's prevHash vouches for all of them.
      state.head =
        typeof stored.hash === 'string' ? stored.hash : linkHash(state.head, chainContent(stored));
      const id = Number(stored.id);
      if (Number.isSafeInteger(id)) state.lastId = Math.max(state.lastId, id);
      const parsed = auditRecordSchema.safeParse(stored);
      if (!parsed.success) continue;
      state.records.push(parsed.data);
      const at = Date.parse(parsed.data.at);
      if (Number.isFinite(at)) state.lastAt = Math.max(state.lastAt, at);
    }
    this.state = state;
    return state;
  }
}
