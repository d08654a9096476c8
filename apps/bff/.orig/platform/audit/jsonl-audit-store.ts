// Append-only audit trail as JSON lines. Each append opens the file with 'a', writes one
// line and fsyncs before resolving, so an acknowledged record survives a crash; appends go
// through one promise chain so concurrent writers never interleave. This process is the
// only writer, so records are also kept in memory for `list` (a database implementation of
// AuditStore would index instead). Record ids are line numbers, which makes the cursor the
// id of the last record seen and keeps pages stable while new records arrive.
import { mkdir, open, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type AuditRecord, auditRecordSchema } from '@card-console/shared/api/audit';
import type { AuditStore, Clock, NewAuditRecord } from '../../http/deps';
import { assertNoCardSecrets } from './card-secrets';

export class JsonlAuditStore implements AuditStore {
  readonly path: string;
  private records: AuditRecord[] | undefined;
  private nextLine = 1;
  /** The file ends in a torn line (crash mid-write): start the next record on a new line. */
  private needsNewline = false;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly dataDir: string,
    private readonly clock: Clock,
  ) {
    this.path = join(dataDir, 'audit.jsonl');
  }

  append(record: NewAuditRecord): Promise<AuditRecord> {
    const run = this.queue.then(() => this.write(record));
    this.queue = run.catch(() => undefined);
    return run;
  }

  async list(options: { cursor?: string; limit: number }) {
    await this.queue;
    const records = await this.load();
    const before = options.cursor === undefined ? Number.POSITIVE_INFINITY : Number(options.cursor);
    const items: AuditRecord[] = [];
    for (let i = records.length - 1; i >= 0 && items.length < options.limit; i--) {
      const record = records[i];
      if (record && Number(record.id) < before) items.push(record);
    }
    const last = items.at(-1);
    const more = last !== undefined && records.some((r) => Number(r.id) < Number(last.id));
    return more && last ? { items, nextCursor: last.id } : { items };
  }

  private async write(input: NewAuditRecord): Promise<AuditRecord> {
    const records = await this.load();
    const record = auditRecordSchema.parse({
      ...input,
      id: String(this.nextLine),
      at: new Date(this.clock.now()).toISOString(),
    });
    const json = JSON.stringify(record);
    assertNoCardSecrets(json);
    const line = `${this.needsNewline ? '\n' : ''}${json}\n`;
    await mkdir(this.dataDir, { recursive: true, mode: 0o700 });
    const file = await open(this.path, 'a', 0o600);
    try {
      await file.write(line);
      await file.sync();
    } finally {
      await file.close();
    }
    this.nextLine++;
    this.needsNewline = false;
    records.push(record);
    return record;
  }

  private async load(): Promise<AuditRecord[]> {
    if (this.records) return this.records;
    let text = '';
    try {
      text = await readFile(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    this.needsNewline = text.length > 0 && !text.endsWith('\n');
    const lines = text.split('\n');
    if (lines.at(-1) === '') lines.pop();
    const records: AuditRecord[] = [];
    for (const line of lines) {
      // A torn last line from a crash is skipped, never rewritten: the file stays append-only.
      try {
        const parsed = auditRecordSchema.safeParse(JSON.parse(line));
        if (parsed.success) records.push(parsed.data);
      } catch {}
    }
    this.nextLine = lines.length + 1;
    this.records = records;
    return records;
  }
}
