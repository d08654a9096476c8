// `pnpm audit-log verify` and `head` as an operator runs them: a real child process reading the
// BFF's configuration, against a trail someone tampered with on disk or in the database,
// including cut at its end, which only a head kept earlier shows.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChainedAuditRecord, sealRecord } from '../platform/audit/audit-chain';
import type { NewAuditRecord } from '../platform/audit/audit-store';
import { JsonlAuditStore } from '../platform/audit/jsonl-audit-store';
import { connectPostgresAudit } from '../platform/audit/postgres-audit';
import {
  type AuditTestCluster,
  type AuditTestDatabase,
  asSuperuser,
  auditTestCluster,
  silentLogger,
} from '../test/audit-cluster';
import { ManualClock } from '../test/manual-clock';

const bffDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function verify(env: Record<string, string>, args = ['verify']): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'src/cli/audit-log.ts', ...args],
      { cwd: bffDir, env: { PATH: process.env.PATH ?? '', ...env }, timeout: 60_000 },
      (error, stdout, stderr) =>
        resolve({ code: error ? ((error as { code?: number }).code ?? null) : 0, stdout, stderr }),
    );
  });
}

const record = (n: number): NewAuditRecord => ({
  actor: `person${n % 2}@example.com`,
  role: 'admin',
  action: 'card.reveal',
  outcome: 'success',
  cardId: `card_${n}`,
  reason: 'customer call',
  requestId: `req-${n}`,
});

describe('pnpm audit-log verify, on the embedded trail (DATA_DIR)', () => {
  let dir: string;
  let lines: string[];
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'audit-cli-'));
    const store = new JsonlAuditStore(dir, new ManualClock());
    for (let i = 1; i <= 5; i++) await store.append(record(i));
    lines = (await readFile(store.path, 'utf8')).trimEnd().split('\n');
  });
  afterAll(() => rm(dir, { recursive: true, force: true, maxRetries: 5 }));

  const withLines = async (edited: string[]) => {
    await writeFile(join(dir, 'audit.jsonl'), `${edited.join('\n')}\n`);
    return verify({ DATA_DIR: dir });
  };

  it('prints the count and "chain intact" and exits 0 for an untouched file', async () => {
    const run = await withLines(lines);
    expect(run.stdout).toContain('5 records, chain intact.');
    const last = JSON.parse(lines[4] ?? '{}') as { hash: string };
    expect(run.stdout).toContain(`Head: 5:${last.hash}`);
    expect(run.code).toBe(0);
  });

  it('`head` prints the head to keep, and verify --head with it and an older one passes', async () => {
    await withLines(lines);
    const head = await verify({ DATA_DIR: dir }, ['head']);
    const [, kept] = head.stdout.trimEnd().split('\n');
    const hashOf = (n: number) => (JSON.parse(lines[n - 1] ?? '{}') as { hash: string }).hash;
    expect(kept).toBe(`5:${hashOf(5)}`);
    expect(head.code).toBe(0);
    const run = await verify({ DATA_DIR: dir }, [
      'verify',
      '--head',
      kept ?? '',
      '--head',
      `3:${hashOf(3)}`,
    ]);
    expect(run.stdout).toContain(`Reaches the kept head 5:${hashOf(5)}.`);
    expect(run.stdout).toContain(`Reaches the kept head 3:${hashOf(3)}.`);
    expect(run.code).toBe(0);
  });

  it('a trail cut at its end passes the chain alone, and fails against a head kept before the cut', async () => {
    const kept = `5:${(JSON.parse(lines[4] ?? '{}') as { hash: string }).hash}`;
    const cut = await withLines(lines.slice(0, 3));
    expect(cut.stdout).toContain('3 records, chain intact.');
    expect(cut.code).toBe(0);
    const run = await verify({ DATA_DIR: dir }, ['verify', '--head', kept]);
    expect(run.stdout).toContain(
      'the kept head, record 5, is not in the trail, which ends at record 3: records from 4 on were removed from the end',
    );
    expect(run.code).toBe(1);
  });

  it('a tail rewritten and re-sealed passes the chain alone, and fails against the kept head', async () => {
    const kept = `5:${(JSON.parse(lines[4] ?? '{}') as { hash: string }).hash}`;
    const four = JSON.parse(lines[3] ?? '{}') as ChainedAuditRecord;
    const {
      prevHash: _p,
      hash: _h,
      ...content
    } = JSON.parse(lines[4] ?? '{}') as ChainedAuditRecord;
    const forged = sealRecord({ ...content, reason: 'routine check' }, four.hash);
    await withLines([...lines.slice(0, 4), JSON.stringify(forged)]);
    const run = await verify({ DATA_DIR: dir }, ['verify', '--head', kept]);
    expect(run.stdout).toContain('5 records, chain intact.');
    expect(run.stdout).toContain(
      `record 5 no longer has the kept hash ${kept.slice(2)} (now ${forged.hash})`,
    );
    expect(run.code).toBe(1);
  });

  it('refuses a --head that is not <id>:<hash>, with the usage and exit 2', async () => {
    await withLines(lines);
    for (const args of [
      ['verify', '--head', '5'],
      ['head', '--head', `5:${'0'.repeat(64)}`],
    ]) {
      const run = await verify({ DATA_DIR: dir }, args);
      expect(run.stderr).toContain('usage: pnpm audit-log verify');
      expect(run.code).toBe(2);
    }
  });

  it('names a changed record and exits 1', async () => {
    const edited = [...lines];
    edited[2] = (edited[2] ?? '').replace('customer call', 'routine check');
    const run = await withLines(edited);
    expect(run.stdout).toContain('record 3 was changed: its hash does not match its content');
    expect(run.stdout).toContain('Checked 2 records before it: the chain is broken.');
    expect(run.code).toBe(1);
  });

  it('names the record after a deleted one and exits 1', async () => {
    const run = await withLines(lines.filter((_, i) => i !== 2));
    expect(run.stdout).toContain('record 4 follows a gap: record 3 was removed');
    expect(run.code).toBe(1);
  });

  it('names two swapped records as out of order and exits 1', async () => {
    const [a, b, c, d, e] = lines;
    const run = await withLines([a, b, d, c, e] as string[]);
    expect(run.stdout).toContain('record 4 is out of order: it comes before record 3');
    expect(run.code).toBe(1);
  });

  it('skips, and names, a line a crash cut short, the chain still intact', async () => {
    const run = await withLines([...lines, '{"id":"6","at":"20']);
    expect(run.stdout).toContain('not a record (a write cut short by a crash?): line 6');
    expect(run.stdout).toContain('5 records, chain intact.');
    expect(run.code).toBe(0);
  });

  it('explains its usage and exits 2 when not asked to verify', async () => {
    const run = await verify({ DATA_DIR: dir }, ['check']);
    expect(run.stderr).toContain('usage: pnpm audit-log verify');
    expect(run.code).toBe(2);
  });
});

describe('pnpm audit-log verify, on PostgreSQL (DATABASE_URL)', () => {
  let cluster: AuditTestCluster;
  beforeAll(async () => {
    cluster = await auditTestCluster();
  }, 60_000);
  afterAll(() => cluster?.stop());

  /** A database holding a valid trail of five records, written as the BFF writes them. */
  async function trail(): Promise<AuditTestDatabase> {
    const db = await cluster.fresh();
    const audit = await connectPostgresAudit({ url: db.bffUrl, logger: silentLogger });
    for (let i = 1; i <= 5; i++) await audit.store.append(record(i));
    await audit.close();
    return db;
  }

  /** Runs `sql` as a superuser would to tamper: with the append-only trigger disabled. */
  async function tamper(db: AuditTestDatabase, sql: string, values?: unknown[]) {
    const client = new pg.Client({ connectionString: db.ownerUrl });
    await client.connect();
    try {
      await client.query('ALTER TABLE audit_record DISABLE TRIGGER audit_record_append_only');
      await client.query(sql, values);
      await client.query('ALTER TABLE audit_record ENABLE TRIGGER audit_record_append_only');
    } finally {
      await client.end();
    }
  }

  it("reads the trail as the BFF's own role, exits 0 and never prints the password", async () => {
    const db = await trail();
    const run = await verify({ DATABASE_URL: db.bffUrl });
    expect(run.stdout).toContain('5 records, chain intact.');
    expect(run.stdout).toContain(`PostgreSQL, ${cluster.bffRole}@`);
    const password = decodeURIComponent(new URL(db.bffUrl).password);
    expect(password.length).toBeGreaterThan(8);
    expect(run.stdout + run.stderr).not.toContain(password);
    expect(run.code).toBe(0);
  });

  it('names a record changed in the database and exits 1', async () => {
    const db = await trail();
    await tamper(db, "UPDATE audit_record SET actor = 'someone-else@example.com' WHERE id = 3");
    const run = await verify({ DATABASE_URL: db.bffUrl });
    expect(run.stdout).toContain('record 3 was changed: its hash does not match its content');
    expect(run.code).toBe(1);
  });

  it('names the record after a deleted one and exits 1', async () => {
    const db = await trail();
    await tamper(db, 'DELETE FROM audit_record WHERE id = 3');
    const run = await verify({ DATABASE_URL: db.bffUrl });
    expect(run.stdout).toContain('record 4 follows a gap: record 3 was removed');
    expect(run.code).toBe(1);
  });

  it('catches two records swapped, whether or not the forger re-sealed them', async () => {
    const swap = `UPDATE audit_record SET id = -id WHERE id IN (3, 4);
      UPDATE audit_record SET id = CASE id WHEN -3 THEN 4 ELSE 3 END WHERE id < 0`;
    // Swapped as they are: the id is part of what each hash covers.
    const plain = await trail();
    await tamper(plain, `ALTER TABLE audit_record DROP CONSTRAINT audit_record_id_check; ${swap}`);
    const plainRun = await verify({ DATABASE_URL: plain.bffUrl });
    expect(plainRun.stdout).toContain('record 3 was changed');
    expect(plainRun.code).toBe(1);

    // Re-sealed with their new ids and links to each other: the link from record 2 breaks.
    const forged = await trail();
    const { rows } = await asSuperuser<{ id: string; prev_hash: string }>(
      forged.ownerUrl,
      'SELECT id, prev_hash FROM audit_record WHERE id = 3',
    );
    const three = sealRecord(
      { ...record(4), id: '3', at: new Date().toISOString() },
      rows[0]?.prev_hash ?? '',
    );
    const four: ChainedAuditRecord = sealRecord(
      { ...record(3), id: '4', at: new Date().toISOString() },
      three.hash,
    );
    for (const r of [three, four]) {
      await tamper(
        forged,
        'UPDATE audit_record SET card_id = $2, actor = $3, request_id = $4, at = $5, prev_hash = $6, hash = $7 WHERE id = $1',
        [r.id, r.cardId, r.actor, r.requestId, r.at, r.prevHash, r.hash],
      );
    }
    const forgedRun = await verify({ DATABASE_URL: forged.bffUrl });
    expect(forgedRun.stdout).toContain('record 5 is out of order: it does not follow record 4');
    expect(forgedRun.code).toBe(1);
  });

  it('records cut from the end (trigger turned off by the owner) pass the chain alone, and fail against a kept head', async () => {
    const db = await trail();
    const head = await verify({ DATABASE_URL: db.bffUrl }, ['head']);
    const kept = head.stdout.trimEnd().split('\n').at(-1) ?? '';
    expect(kept).toMatch(/^5:[0-9a-f]{64}$/);
    await tamper(db, 'DELETE FROM audit_record WHERE id > 3');
    const alone = await verify({ DATABASE_URL: db.bffUrl });
    expect(alone.stdout).toContain('3 records, chain intact.');
    expect(alone.code).toBe(0);
    const run = await verify({ DATABASE_URL: db.bffUrl }, ['verify', '--head', kept]);
    expect(run.stdout).toContain('records from 4 on were removed from the end');
    expect(run.code).toBe(1);
  });

  it('says it could not read the trail, and exits 2, when PostgreSQL is not there', async () => {
    const run = await verify({ DATABASE_URL: 'postgres://bff:pw-not-shown@127.0.0.1:1/cards' });
    expect(run.stdout).toContain('Could not read the audit trail');
    expect(run.stdout).not.toContain('pw-not-shown');
    expect(run.code).toBe(2);
  });
});
