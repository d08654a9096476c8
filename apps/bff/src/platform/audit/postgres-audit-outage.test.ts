// PostgreSQL stopped under the store and started again: calls fail fast with
// StoreUnavailableError (503) instead of hanging, and the same pool serves again once the
// server is back, with no acknowledged record lost and the chain intact.

import type { AuditRecord } from '@card-console/shared/api/audit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AuditTestCluster, auditTestCluster, silentLogger } from '../../test/audit-cluster';
import { StoreUnavailableError } from '../store-unavailable';
import { connectPostgresAudit, type PostgresAudit } from './postgres-audit';
import { verifyChain } from './verify-chain';

let cluster: AuditTestCluster;
let audit: PostgresAudit;
beforeAll(async () => {
  cluster = await auditTestCluster({ own: true });
  audit = await connectPostgresAudit({ url: (await cluster.fresh()).bffUrl, logger: silentLogger });
}, 60_000);
afterAll(async () => {
  await audit?.close();
  await cluster?.stop();
});

const record = (n: number) =>
  ({
    actor: 'ada@example.com',
    action: 'card.reveal',
    outcome: 'success',
    requestId: `r${n}`,
  }) as const;

async function ids(): Promise<string[]> {
  const out: string[] = [];
  for await (const r of audit.store.records()) out.push(r.id);
  return out;
}

describe('PostgresAuditStore when PostgreSQL stops', () => {
  it('answers StoreUnavailableError while it is down, and serves again once it is back', async () => {
    const engine = cluster.engine;
    if (!engine) throw new Error('this test needs a server of its own');
    await audit.store.append(record(1));
    await engine.stop();
    const attempts = await Promise.allSettled([
      ...Array.from({ length: 20 }, (_, i) => audit.store.append(record(100 + i))),
      audit.store.list({ limit: 10 }),
      audit.readiness.check(),
    ]);
    for (const attempt of attempts) {
      expect(attempt.status).toBe('rejected');
      const reason = (attempt as PromiseRejectedResult).reason;
      expect(reason).toBeInstanceOf(StoreUnavailableError);
      expect(reason.engine).toBe('postgres');
    }
    await engine.start();
    await audit.readiness.check();
    expect((await audit.store.append(record(2))).id).toBe('2');
    expect(await verifyChain(audit.store.records())).toMatchObject({ verified: 2 });
  }, 60_000);

  it('keeps every acknowledged record, and one valid chain, when it stops mid-burst', async () => {
    const engine = cluster.engine;
    if (!engine) throw new Error('this test needs a server of its own');
    const before = (await ids()).length;
    const acknowledged: AuditRecord[] = [];
    const refused: unknown[] = [];
    const burst = Array.from({ length: 300 }, (_, i) =>
      audit.store.append(record(1_000 + i)).then(
        (r) => void acknowledged.push(r),
        (error: unknown) => void refused.push(error),
      ),
    );
    // Stop while the burst is under way: after some appends went through.
    while (acknowledged.length < 20) await new Promise((r) => setTimeout(r, 5));
    await engine.stop();
    await Promise.all(burst);
    expect(refused.length).toBeGreaterThan(0);
    for (const error of refused) expect(error).toBeInstanceOf(StoreUnavailableError);
    await engine.start();
    const stored = await ids();
    for (const r of acknowledged) expect(stored).toContain(r.id);
    expect(stored.length).toBeGreaterThanOrEqual(before + acknowledged.length);
    const report = await verifyChain(audit.store.records());
    expect(report.problem).toBeUndefined();
    expect(report.verified).toBe(stored.length);
  }, 60_000);
});
