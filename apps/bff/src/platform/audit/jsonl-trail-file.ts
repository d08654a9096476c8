// Reading audit.jsonl: one JSON object per line, in the order written. A line that is not a
// JSON object (a write cut short by a crash) is skipped and counted, never rewritten: the
// file stays append-only. What a line holds is taken as it is, extra fields included, so
// the verifier hashes exactly what is on disk.
import { readFile } from 'node:fs/promises';
import type { StoredAuditRecord } from './audit-chain';

export interface TrailFile {
  /** Every line that is a JSON object, in file order. */
  records: StoredAuditRecord[];
  /** 1-based numbers of the lines that are not. */
  unreadableLines: number[];
  /** The file ends without a newline (a torn last line). */
  endsTorn: boolean;
}

export async function readTrailFile(path: string): Promise<TrailFile> {
  let text = '';
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  const records: StoredAuditRecord[] = [];
  const unreadableLines: number[] = [];
  lines.forEach((line, index) => {
    const value = parseObject(line);
    if (value) records.push({ ...value, id: String(value.id) } as StoredAuditRecord);
    else unreadableLines.push(index + 1);
  });
  return { records, unreadableLines, endsTorn: text.length > 0 && !text.endsWith('\n') };
}

function parseObject(line: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(line);
    return value && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
