// The index sync as a background job of two replicas sharing one PostgreSQL (each a pool of its
// own, logged in as the writer role only), against the simulator over HTTP: a sync asked for on
// a busy replica is run by the other's worker, and a replica that dies mid-sync leaves it to the
// other, which walks only the days the dead one had not.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../core/clock';
import { type BackgroundJobs, createBackgroundJobs } from '../../platform/jobs/background-jobs';
import type { SqlEngine } from '../../platform/sql/sql-engine';
import { silentLogger } from '../../test/audit-cluster';
import { postgresReplicas, type SqlReplicas } from '../../test/engines/sql-replicas';
import { testClient, useSimulator } from '../../test/upstream-client';
import { TransactionIndexStore } from './index-store';
import {
  INDEX_HISTORY_DAYS,
  type IndexSyncInput,
  type IndexSyncProgress,
  indexSyncWork,
  newSyncProgress,
  utcDay,
} from './index-sync';

const LEASE_MS = 1_500;
const upstream = useSimulator({ subAccounts: 3, transactions: 4_000, months: 3, rateLimit: false });
let sql: SqlReplicas;
const started: BackgroundJobs[] = [];
beforeAll(async () => {
  sql = await postgresReplicas();
}, 60_000);
afterAll(async () => {
  await Promise.all(started.map((jobs) => jobs.stop()));
  await sql?.close();
});

/** A replica: its own pool, client and jobs; one sync at a time, `blocker` a job that waits. */
function replica(engine: SqlEngine, blocker: Promise<void> = Promise.resolve()) {
  const ran: string[] = [];
  const work = indexSyncWork({
    upstream: testClient(upstream.url).client,
    store: new TransactionIndexStore(engine),
    clock: systemClock,
    logger: silentLogger,
  });
  const jobs = createBackgroundJobs({
    sql: engine,
    clock: systemClock,
    cutOff: new AbortController().signal,
    logger: silentLogger,
    leaseMs: LEASE_MS,
    pollMs: 100,
  });
  started.push(jobs);
  const syncs = jobs.kind<IndexSyncInput, IndexSyncProgress>('transaction-index', {
    async run(key, input, job) {
      ran.push(key);
      if (key === 'blocker') return blocker;
      await work(key, input, job);
    },
    progress: newSyncProgress,
    failureMemoryMs: 0,
    atOnce: 1,
  });
  return { jobs, syncs, ran };
}

const subAccount = (i: number) => upstream.sim.data.subAccounts()[i]?.id as string;

/** The simulator's rows of the history window: what the index must hold of `sub`. */
function serviceRows(sub: string): number {
  const from = Date.parse(`${utcDay(Date.now() - (INDEX_HISTORY_DAYS - 1) * 86_400_000)}T00:00Z`);
  return upstream.sim.data.transactions(sub).filter((t) => Date.parse(t.date) >= from).length;
}

const indexed = async (sub: string) =>
  (await new TransactionIndexStore(sql.owner).summary({ subAccountIds: [sub] })).count;

describe('the index sync on two replicas sharing one PostgreSQL', () => {
  it('asked on a replica busy with another sync, it is run by the other replica; the asker follows it to its end', async () => {
    let unblock: () => void = () => {};
    const a = replica(
      sql.a,
      new Promise<void>((resolve) => {
        unblock = resolve;
      }),
    );
    const b = replica(sql.b);
    const blocker = a.syncs.request('blocker', { requestId: 'req-block', freshForMs: 0 });
    while (blocker.state() !== 'running') await new Promise((r) => setTimeout(r, 20));
    await b.jobs.start();

    const sub = subAccount(0);
    const job = a.syncs.request(sub, { requestId: 'req-on-a', freshForMs: 0 });
    await job.done;
    expect(job.outcome()).toMatchObject({ ok: true });
    expect(a.ran).toEqual(['blocker']);
    expect(b.ran).toEqual([sub]);
    // A read B's progress from the row: every day of the window walked.
    expect(job.progress.days).toBe(INDEX_HISTORY_DAYS);
    expect(job.progress.daysDone).toBe(INDEX_HISTORY_DAYS);
    expect(await indexed(sub)).toBe(serviceRows(sub));
    expect(await indexed(sub)).toBeGreaterThan(100);
    unblock();
    await blocker.done;
    await b.jobs.stop();
  }, 60_000);

  it('a replica that dies mid-sync leaves it to the other once its lease lapses, which walks only the days left', async () => {
    // A replica whose pool ends with it, as a killed process's connections do.
    const dying = sql.replica(2);
    const a = replica(dying);
    const b = replica(sql.b);
    const sub = subAccount(1);
    upstream.sim.faults.set({ latencyMs: 40 });
    const onA = a.syncs.request(sub, { requestId: 'req-on-a', freshForMs: 60_000 });
    while (onA.progress.daysDone === 0) await new Promise((r) => setTimeout(r, 20));
    expect(onA.progress.daysDone).toBeLessThan(INDEX_HISTORY_DAYS);
    await dying.close();
    const diedAt = Date.now();
    upstream.sim.faults.clear();

    const onB = b.syncs.request(sub, { requestId: 'req-on-b', freshForMs: 0 });
    await onB.done;
    expect(onB.outcome()).toMatchObject({ ok: true });
    expect(Date.now() - diedAt).toBeGreaterThanOrEqual(LEASE_MS / 2);
    expect(b.ran).toEqual([sub]);
    // B ran A's job (A's input: days walked in the last minute are done) and walked the rest.
    expect(onB.progress.days).toBeGreaterThan(0);
    expect(onB.progress.days).toBeLessThan(INDEX_HISTORY_DAYS);
    expect(await indexed(sub)).toBe(serviceRows(sub));
  }, 60_000);
});
