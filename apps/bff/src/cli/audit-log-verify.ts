// `pnpm audit-log verify` and `head`, without the process around them: walks the audit trail
// the BFF is configured with (PostgreSQL at DATABASE_URL, else DATA_DIR/audit.jsonl) and
// reports, checking that it still reaches each head kept earlier; or prints where it ends.
import pino from 'pino';
import type { AuditChainSource } from '../platform/audit/audit-chain';
import {
  type AuditHead,
  type AuditHeadSource,
  formatHead,
  missedHead,
  noteHashes,
} from '../platform/audit/audit-head';
import { JsonlAuditStore } from '../platform/audit/jsonl-audit-store';
import { readTrailFile } from '../platform/audit/jsonl-trail-file';
import { createAuditPool, describeDatabaseUrl } from '../platform/audit/postgres-audit';
import { PostgresAuditStore } from '../platform/audit/postgres-audit-store';
import { verifyChain } from '../platform/audit/verify-chain';

export interface VerifyOutcome {
  /** 0: the chain holds; 1: it is broken; 2: the trail could not be read. */
  exitCode: 0 | 1 | 2;
  lines: string[];
}

const count = (n: number, what: string) =>
  `${n.toLocaleString('en-US')} ${what}${n === 1 ? '' : 's'}`;

interface TrailWhere {
  databaseUrl: string | undefined;
  dataDir: string;
}

/** The newest record's id and hash, as `<id>:<hash>` to keep (no walk: one lookup). */
export async function auditLogHead(where: TrailWhere): Promise<VerifyOutcome> {
  const pool = where.databaseUrl
    ? createAuditPool(where.databaseUrl, pino({ level: 'silent' }), 1)
    : undefined;
  // Read only: nothing is written to the file (its clock is never asked).
  const source: AuditHeadSource = pool
    ? new PostgresAuditStore(pool)
    : new JsonlAuditStore(where.dataDir, { now: () => 0 });
  try {
    const head = await source.head();
    return {
      exitCode: 0,
      lines: [
        `Audit trail head: record ${head.id}. Keep this line where the database's administrators cannot write, and check it later with \`pnpm audit-log verify --head\`:`,
        formatHead(head),
      ],
    };
  } catch (error) {
    return { exitCode: 2, lines: [`Could not read the audit trail: ${(error as Error).message}`] };
  } finally {
    await pool?.end();
  }
}

export async function verifyAuditLog(
  where: TrailWhere,
  /** Heads kept earlier (`pnpm audit-log head`, the replicas' hourly log line). */
  kept: readonly AuditHead[] = [],
): Promise<VerifyOutcome> {
  const lines: string[] = [];
  let source: AuditChainSource;
  let close = async () => {};
  if (where.databaseUrl) {
    lines.push(`Audit trail: PostgreSQL, ${describeDatabaseUrl(where.databaseUrl)}`);
    const pool = createAuditPool(where.databaseUrl, pino({ level: 'silent' }), 1);
    source = new PostgresAuditStore(pool);
    close = () => pool.end();
  } else {
    // Read only: nothing is written to the file (its clock is never asked).
    const store = new JsonlAuditStore(where.dataDir, { now: () => 0 });
    lines.push(`Audit trail: ${store.path}`);
    const { unreadableLines } = await readTrailFile(store.path);
    if (unreadableLines.length > 0) {
      lines.push(
        `Skipped ${count(unreadableLines.length, 'line')} that ${unreadableLines.length === 1 ? 'is' : 'are'} not a record (a write cut short by a crash?): line ${unreadableLines.join(', ')}`,
      );
    }
    source = store;
  }
  try {
    const walk = noteHashes(source.records(), kept);
    const report = await verifyChain(walk.records);
    if (report.unchained > 0) {
      lines.push(
        `${count(report.unchained, 'record')} written before the chain began, vouched for by the first chained record.`,
      );
    }
    if (report.problem) {
      lines.push(`Checked ${count(report.verified, 'record')} before it: the chain is broken.`);
      lines.push(report.problem.message);
      return { exitCode: 1, lines };
    }
    lines.push(`${count(report.verified, 'record')}, chain intact.`);
    const head = { id: walk.lastId(), hash: report.head };
    const missed = kept.flatMap((k) => missedHead(k, walk.seen, head) ?? []);
    for (const k of kept) {
      if (!missedHead(k, walk.seen, head)) lines.push(`Reaches the kept head ${formatHead(k)}.`);
    }
    if (missed.length > 0) {
      lines.push('The trail does not reach a head kept earlier:');
      for (const why of missed) lines.push(`  ${why}`);
      return { exitCode: 1, lines };
    }
    // Removing records from the end leaves no gap: keep this line to compare with later.
    lines.push(`Head: ${formatHead(head)}`);
    return { exitCode: 0, lines };
  } catch (error) {
    lines.push(`Could not read the audit trail: ${(error as Error).message}`);
    const cause = (error as { cause?: Error }).cause;
    if (cause?.message) lines.push(`  cause: ${cause.message}`);
    return { exitCode: 2, lines };
  } finally {
    await close();
  }
}
