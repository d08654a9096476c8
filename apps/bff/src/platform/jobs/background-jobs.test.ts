// Background jobs on two replicas sharing one PostgreSQL (each a pool of its own, logged in as
// the writer role only): a job asked for on one replica runs once, on whichever takes it; one
// asked on a busy replica is run by the other's worker, the asker following its progress; and a
// replica that dies mid-job leaves it to the other once its lease lapses. The same on the
// embedded engine, two workers in one process.
import pino, { type Logger } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Clock, systemClock } from '../../core/clock';
import { silentLogger } from '../../test/audit-cluster';
import { migratedMemoryEngine } from '../../test/engines/embedded';
import { postgresReplicas, type SqlReplicas } from '../../test/engines/sql-replicas';
import { expectFailureSchedule, flakyWork } from '../../test/failure-schedule';
import { ManualClock } from '../../test/manual-clock';
import type { SqlEngine } from '../sql/sql-engine';
import { type BackgroundJobs, createBackgroundJobs } from './background-jobs';
import type { JobContext } from './job-runner';

interface Progress {
  steps: number;
}

let sql: SqlReplicas;
let embedded: SqlEngine;
beforeAll(async () => {
  [sql, embedded] = await Promise.all([postgresReplicas(), migratedMemoryEngine()]);
}, 60_000);
afterAll(() => Promise.all([sql?.close(), embedded?.close()]));

const LEASE_MS = 1_500;
const started: BackgroundJobs[] = [];
// Each test's replicas stop with it: a worker left polling the shared table would take the next
// test's job when its lease lapsed (seen in a loaded clean-clone run: the job run by an earlier
// test's replica, not the one the test watched).
afterEach(() => Promise.all(started.splice(0).map((jobs) => jobs.stop())));

/**
 * A replica's jobs on `engine`, its kind `step` running `work` (at most `atOnce` here); failures
 * forgotten at once unless `failureMemoryMs` says otherwise, measured by `clock`.
 */
function replica(
  engine: SqlEngine,
  work: (key: string, input: { by: string }, job: JobContext<Progress>) => Promise<void>,
  atOnce = 1,
  options: {
    clock?: Clock;
    failureMemoryMs?: (inARow: number) => number;
    logger?: Logger;
  } = {},
) {
  const jobs = createBackgroundJobs({
    sql: engine,
    clock: options.clock ?? systemClock,
    cutOff: new AbortController().signal,
    logger: options.logger ?? silentLogger,
    leaseMs: LEASE_MS,
    pollMs: 100,
  });
  started.push(jobs);
  const kind = jobs.kind<{ by: string }, Progress>('step', {
    run: work,
    progress: () => ({ steps: 0 }),
    failureMemoryMs: options.failureMemoryMs ?? 0,
    atOnce,
  });
  return { jobs, kind };
}

const gate = () => {
  let open: () => void = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { open, opened };
};

interface Engines {
  a: SqlEngine;
  b: SqlEngine;
  /** To read rows behind the jobs' backs. */
  owner: SqlEngine;
}

/** The job's row of `key`, read behind the jobs' backs. */
const rowOf = (on: () => Engines) => async (key: string) =>
  (
    await on().owner.query<{ state: string; attempts: number; input: { by: string } }>(
      "SELECT state, attempts, input FROM background_job WHERE kind = 'step' AND key = $1",
      [key],
    )
  )[0];

describe('background jobs on two replicas sharing one PostgreSQL', () => {
  const on = () => sql;
  const row = rowOf(on);
  shared(on);
  it('a replica that dies mid-job leaves it to the other once its lease lapses', async () => {
    // A replica whose pool ends with it, as a killed process's connections do.
    const dying = sql.replica(2);
    const hang = gate();
    const a = replica(dying, async (_key, _input, job) => {
      job.progress.steps = 1;
      await hang.opened;
    });
    const bRuns: number[] = [];
    const b = replica(on().b, async () => {
      bRuns.push(Date.now());
    });
    const onA = a.kind.request('orphan', { by: 'a' });
    while (onA.state() !== 'running') await new Promise((r) => setTimeout(r, 20));
    // A dies: no heartbeat, no settle.
    await dying.close();
    const diedAt = Date.now();

    const onB = b.kind.request('orphan', { by: 'b' });
    await new Promise((r) => setTimeout(r, LEASE_MS / 3));
    expect(onB.outcome(), 'B waits while A’s lease holds').toBeUndefined();
    expect(bRuns).toEqual([]);
    await onB.done;
    expect(onB.outcome()).toMatchObject({ ok: true });
    expect(bRuns).toHaveLength(1);
    expect((bRuns[0] ?? 0) - diedAt).toBeGreaterThanOrEqual(LEASE_MS / 2);
    // The second take of the one job A asked for, settled by B.
    expect(await row('orphan')).toMatchObject({
      state: 'succeeded',
      attempts: 2,
      input: { by: 'a' },
    });
    hang.open();
  }, 30_000);
});

describe('background jobs on the embedded engine, two workers in one process', () => {
  const on = () => ({ a: embedded, b: embedded, owner: embedded });
  shared(on);
});

/** What holds on either engine. */
function shared(on: () => Engines) {
  it('a job that keeps failing is asked for again on its schedule, not by every request; a success resets it', async () => {
    const clock = new ManualClock(Date.UTC(2026, 11, 1));
    const flaky = { fail: true, runs: 0 };
    // 1 s after the first failure in a row, 2 s after the second, …
    const { kind } = replica(on().a, flakyWork(flaky), 1, {
      clock,
      failureMemoryMs: (inARow) => inARow * 1_000,
    });
    await kind.request('flaky', { by: 'a' }).done;
    // What it remembers: the error, when, and how many in a row.
    expect(kind.failure('flaky')).toMatchObject({
      inARow: 1,
      at: clock.now(),
      error: expect.objectContaining({ message: 'failed run 1' }),
    });
    clock.advance(60_000);
    flaky.runs = 0;
    flaky.fail = false;
    await kind.request('flaky', { by: 'a' }).done;
    flaky.runs = 0;
    flaky.fail = true;
    clock.advance(1);
    await expectFailureSchedule({
      clock,
      flaky,
      ask: () => kind.request('flaky', { by: 'a' }).done,
      retryAt: () => kind.failure('flaky')?.retryAt,
    });
  }, 30_000);

  it('asked for many at once while its worker polls, a replica runs no more than its slots', async () => {
    // Twelve asks in one moment on a replica of two slots, its worker polling beside them: each
    // ask checked for a free slot before any claim came back, so all took one (four running at
    // two, and the worker's claim asked for a negative number of rows: a failed pass).
    let now = 0;
    let most = 0;
    const failures: string[] = [];
    const logger = pino(
      { level: 'warn' },
      { write: (line: string) => void failures.push(JSON.parse(line).msg) },
    );
    const a = replica(
      on().a,
      async () => {
        most = Math.max(most, ++now);
        await new Promise((resolve) => setTimeout(resolve, 150));
        now--;
      },
      2,
      { logger },
    );
    await a.jobs.start();
    const keys = Array.from({ length: 12 }, (_, i) => `many-${i}-${Date.now()}`);
    const jobs = keys.map((key) => a.kind.request(key, { by: 'a' }));
    await Promise.all(jobs.map((job) => job.done));
    expect(jobs.map((job) => job.outcome()?.ok)).toEqual(keys.map(() => true));
    expect(most).toBe(2);
    expect(failures).toEqual([]);
  }, 60_000);

  const row = rowOf(on);
  it('asked on both at once, a job runs once, with the first asker’s input', async () => {
    const runs: string[] = [];
    const work = (by: string) => async (key: string, input: { by: string }) => {
      runs.push(`${by}:${key}:${input.by}`);
      await new Promise((resolve) => setTimeout(resolve, 300));
    };
    const a = replica(on().a, work('a'));
    const b = replica(on().b, work('b'));
    const jobs = [a.kind.request('once', { by: 'a' }), b.kind.request('once', { by: 'b' })];
    await Promise.all(jobs.map((job) => job.done));
    expect(jobs.map((job) => job.outcome()?.ok)).toEqual([true, true]);
    expect(runs).toHaveLength(1);
    expect(await row('once')).toMatchObject({ state: 'succeeded', attempts: 1 });
    expect(runs[0]?.endsWith(`:once:${(await row('once'))?.input.by}`)).toBe(true);
  }, 30_000);

  it('asked on a replica busy with another, run by the other replica’s worker; the asker follows it', async () => {
    const busy = gate();
    const runBy: string[] = [];
    const a = replica(on().a, async (key) => {
      runBy.push(`a:${key}`);
      await busy.opened;
    });
    const b = replica(on().b, async (key, _input, job) => {
      runBy.push(`b:${key}`);
      for (let i = 0; i < 3; i++) {
        job.progress.steps++;
        await new Promise((resolve) => setTimeout(resolve, LEASE_MS / 2));
      }
    });
    // A runs one job at most, and is running one.
    const first = a.kind.request('first', { by: 'a' });
    while (first.state() !== 'running') await new Promise((r) => setTimeout(r, 20));
    await b.jobs.start();

    const asked = a.kind.request('second', { by: 'a' });
    let seen = 0;
    while (!asked.outcome()) {
      seen = Math.max(seen, asked.progress.steps);
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(asked.outcome()).toMatchObject({ ok: true });
    expect(runBy).toEqual(['a:first', 'b:second']);
    // A read B's progress while B ran it (heartbeats carry it), and its end.
    expect(seen).toBeGreaterThan(0);
    expect(asked.progress.steps).toBe(3);
    busy.open();
    await first.done;
    expect(first.outcome()).toMatchObject({ ok: true });
    await b.jobs.stop();
  }, 30_000);

  it('a replica that stops hands its job back at once: the other takes it without waiting for the lease', async () => {
    const a = replica(on().a, async (_key, _input, job) => {
      // Runs until told to stop.
      await new Promise((resolve) => job.signal.addEventListener('abort', resolve));
      throw job.signal.reason;
    });
    const bRuns: number[] = [];
    const b = replica(on().b, async () => {
      bRuns.push(Date.now());
    });
    const onA = a.kind.request('handed', { by: 'a' });
    while (onA.state() !== 'running') await new Promise((r) => setTimeout(r, 20));
    await b.jobs.start();
    await new Promise((r) => setTimeout(r, 300));
    expect(bRuns, 'not B’s while A holds it').toEqual([]);

    const stoppedAt = Date.now();
    await a.jobs.stop();
    await onA.done;
    while (bRuns.length === 0 && Date.now() - stoppedAt < LEASE_MS * 3) {
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(bRuns).toHaveLength(1);
    expect((bRuns[0] ?? 0) - stoppedAt).toBeLessThan(LEASE_MS / 2);
    // Handed back (the take not counted), then taken once by B: B records its run after the
    // handler returns, so the row is read until B has written it (a CI run read it before).
    await expect
      .poll(() => row('handed'), { timeout: LEASE_MS * 3 })
      .toMatchObject({ state: 'succeeded', attempts: 1 });
    await b.jobs.stop();
  }, 30_000);

  it('a take that another worker has taken since (its lease lapsed) is told to stop, and settles nothing', async () => {
    const a = replica(on().a, async (_key, _input, job) => {
      await new Promise((resolve) => job.signal.addEventListener('abort', resolve));
      throw job.signal.reason;
    });
    const onA = a.kind.request('stolen', { by: 'a' });
    while (onA.state() !== 'running') await new Promise((r) => setTimeout(r, 20));
    // Another worker's take, as after A stalled past its lease: the row's try is not A's now.
    await on().owner.query(
      "UPDATE background_job SET attempts = attempts + 1 WHERE kind = 'step' AND key = 'stolen'",
    );
    // A's next renewal finds that out: its work is stopped, and it writes nothing more.
    await onA.done;
    expect(onA.outcome()).toMatchObject({ ok: false });
    expect(await row('stolen')).toMatchObject({ state: 'running', attempts: 2 });
  }, 30_000);
}
