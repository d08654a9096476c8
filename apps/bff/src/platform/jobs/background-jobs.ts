// Keyed background jobs shared by the replicas (`JobKind`): a request asks for a kind's job of a
// key in the jobs' table (job-table.ts) and follows it; the job runs once, on whichever replica
// takes it: the asking one at once when it is free, else any replica's worker (job-worker.ts).
// A replica killed mid-job leaves it to be taken again once its lease lapses; one that stops
// hands back what it runs, due at once.
import type { Logger } from 'pino';
import type { Clock } from '../../core/clock';
import type { SqlEngine } from '../sql/sql-engine';
import { FollowedJob } from './followed-job';
import type { Job, JobContext } from './job-runner';
import { type JobRow, JobTable } from './job-table';
import { type QueueWorker, queueWorker } from './job-worker';

export interface JobKindOptions<I, P extends object> {
  /** The work of one job: the same on every replica, from the key and the requester's input. */
  run(key: string, input: I, job: JobContext<P>): Promise<void>;
  /** A job's progress before it reports any. */
  progress(): P;
  /**
   * How long a failure is remembered here (joined, not asked again), by the app's clock: a
   * number, or a schedule by how many times in a row the key's job has failed (1 for the first),
   * so a job that keeps failing is tried again less and less often, not by every request.
   */
  failureMemoryMs: number | ((failuresInARow: number) => number);
  /** Jobs of the kind this replica runs at once (its worker's and requests' together). */
  atOnce?: number;
}

export interface JobKind<I, P extends object> {
  /**
   * The job of `key`: the one this replica follows (running, or failed within the memory) is
   * joined; otherwise it is asked for (joining one pending or running elsewhere) and followed.
   */
  request(key: string, input: I): Job<P>;
  /** The job of `key` this replica follows, if any. */
  find(key: string): Job<P> | undefined;
  /**
   * The failure of `key`'s job this replica remembers: its error, when, how many in a row, and
   * when a request may ask for the job again (the memory's end).
   */
  failure(key: string): RememberedFailure | undefined;
}

export interface RememberedFailure {
  error: unknown;
  at: number;
  inARow: number;
  retryAt: number;
}

export interface BackgroundJobsOptions {
  /** The engine, opened at its first statement. */
  sql: SqlEngine;
  /** Whether the engine is open: a worker never opens the embedded engine itself. */
  isOpen?: () => boolean;
  clock: Clock;
  /** Aborted when a shutdown's grace period ends: every job is told to stop. */
  cutOff: AbortSignal;
  logger: Pick<Logger, 'warn' | 'error'>;
  /** How long a take holds a job without news from its worker (renewed every third of it); 15 s by default. */
  leaseMs?: number;
  /** How often a worker looks for due jobs, and a follower at a job run elsewhere. */
  pollMs?: number;
  /** Takes of one job at most (a job whose workers keep dying then fails). */
  maxAttempts?: number;
}

const DEFAULT_LEASE_MS = 15_000;
const DEFAULT_POLL_MS = 1_000;
const DEFAULT_MAX_ATTEMPTS = 5;
const LAPSED = 'its worker stopped before it ended, too many times';

export interface BackgroundJobs {
  /** Declares a kind (once per process): its work and how many run here at once. */
  kind<I, P extends object>(name: string, options: JobKindOptions<I, P>): JobKind<I, P>;
  /** Starts the workers: due jobs of every kind are taken, here or by any replica. */
  start(): Promise<void>;
  /** Stops the workers; jobs running here are handed back, due at once for any replica. */
  stop(): Promise<void>;
}

export function createBackgroundJobs(options: BackgroundJobsOptions): BackgroundJobs {
  const table = new JobTable(options.sql);
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  const pollMs = options.pollMs ?? DEFAULT_POLL_MS;
  const maxAttempts = options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
  let stopping = new AbortController();
  const workers: QueueWorker[] = [];
  const names = new Set<string>();
  let started = false;

  function kind<I, P extends object>(name: string, spec: JobKindOptions<I, P>): JobKind<I, P> {
    if (names.has(name)) throw new Error(`background job kind ${name} declared twice`);
    names.add(name);
    const atOnce = spec.atOnce ?? 4;
    const followed = new Map<string, FollowedJob<P>>();
    /** Failures in a row before the job followed now, by key (none once one succeeds). */
    const failedBefore = new Map<string, number>();
    /**
     * This replica's slots in use: takes running here, and slots held while a claim is asked
     * (counted before the claim's await, so asks in the same moment cannot all pass the check and
     * take more than `atOnce` between them).
     */
    let runningHere = 0;

    const memoryOf = (key: string) => {
      const inARow = (failedBefore.get(key) ?? 0) + 1;
      const memory = spec.failureMemoryMs;
      return typeof memory === 'number' ? memory : memory(inARow);
    };
    const expired = (key: string, job: FollowedJob<P>) => {
      const outcome = job.outcome();
      if (!outcome) return false;
      const memory = outcome.ok ? 0 : memoryOf(key);
      return options.clock.now() - outcome.at >= memory;
    };
    /** Stops following an ended job, keeping count of the failures in a row. */
    const forget = (key: string, job: FollowedJob<P>) => {
      followed.delete(key);
      if (job.outcome()?.ok === false) failedBefore.set(key, (failedBefore.get(key) ?? 0) + 1);
      else failedBefore.delete(key);
    };
    const find = (key: string) => {
      const job = followed.get(key);
      if (job && expired(key, job)) forget(key, job);
      return followed.get(key);
    };
    /** The job of `key` this replica follows, unless it has ended: then a new one. */
    const follow = (key: string) => {
      for (const [k, job] of followed) if (expired(k, job)) forget(k, job);
      const known = followed.get(key);
      if (known && !known.outcome()) return known;
      if (known) forget(key, known);
      const job = new FollowedJob<P>(key, spec.progress(), () => options.clock.now());
      followed.set(key, job);
      return job;
    };

    /**
     * Runs a take here in the slot its claim held, renewing its lease with its progress, and
     * settles it; the slot is free again when it ends.
     */
    async function runHere(row: JobRow<I, P>): Promise<void> {
      try {
        await runTake(row);
      } finally {
        runningHere--;
      }
    }

    /** A slot here for `key`'s job, if one is free and its row can be taken: run in it. */
    async function takeHere(key: string): Promise<boolean> {
      if (runningHere >= atOnce || stopping.signal.aborted) return false;
      runningHere++;
      let taken: JobRow<I, P> | undefined;
      try {
        [taken] = await table.claim<I, P>(name, 1, leaseMs, key);
      } finally {
        if (!taken) runningHere--;
      }
      if (!taken) return false;
      await runHere(taken);
      return true;
    }

    async function runTake(row: JobRow<I, P>): Promise<void> {
      const job = follow(row.key);
      // This take's own progress (a follower held what the last take reported).
      if (!job.here) Object.assign(job.progress, spec.progress());
      job.begin();
      if (row.attempts > maxAttempts) {
        await table.settle(row, { ok: false, error: LAPSED }, row.progress);
        job.end({ ok: false, error: new Error(LAPSED) });
        return;
      }
      const stop = stopping.signal;
      const lost = new AbortController();
      const signal = AbortSignal.any([options.cutOff, stop, lost.signal]);
      const beat = setInterval(() => {
        table.heartbeat(row, job.progress, leaseMs).then(
          (ours) => ours || lost.abort(new Error('the job was taken by another worker')),
          (error: unknown) =>
            options.logger.warn({ err: error, job: name }, 'job lease not renewed'),
        );
      }, leaseMs / 3);
      beat.unref();
      try {
        await spec.run(row.key, row.input, { key: row.key, progress: job.progress, signal });
        clearInterval(beat);
        await table.settle(row, { ok: true }, job.progress);
        job.end({ ok: true, result: undefined });
      } catch (error) {
        clearInterval(beat);
        if (stop.aborted || options.cutOff.aborted) {
          // Cut short by this process stopping: handed back, any replica's to run again.
          await table.release(row).catch(() => {});
        } else if (!lost.signal.aborted) {
          await table.settle(row, { ok: false, error: describe(error) }, job.progress);
        }
        job.end({ ok: false, error });
      }
    }

    /** Follows a job another replica runs (or that waits for a worker), taking it if it lapses. */
    async function watch(key: string, job: FollowedJob<P>): Promise<void> {
      for (;;) {
        await new Promise((resolve) => setTimeout(resolve, Math.min(pollMs, 250)).unref());
        if (job.here || job.outcome()) return;
        if (await takeHere(key)) return;
        const row = await table.get<I, P>(name, key);
        if (job.here || job.outcome()) return;
        if (!row) throw new Error(`the job ${name} of ${key} is gone`);
        job.saw(row);
        if (job.outcome()) return;
      }
    }

    const worker = queueWorker<JobRow<I, P>>(
      {
        name: `background job ${name}`,
        batch: atOnce,
        atOnce,
        leaseMs,
        // The slots are held from before the claim to each row's end (run, or handed back).
        claim: async (limit) => {
          const slots = Math.min(limit, atOnce - runningHere);
          if (slots <= 0) return [];
          runningHere += slots;
          let rows: JobRow<I, P>[] = [];
          try {
            rows = await table.claim<I, P>(name, slots, leaseMs);
          } finally {
            runningHere -= slots - rows.length;
          }
          return rows;
        },
        run: runHere,
        release: async (row) => {
          try {
            await table.release(row);
          } finally {
            runningHere--;
          }
        },
      },
      { pollMs, logger: options.logger, ...(options.isOpen ? { ready: options.isOpen } : {}) },
    );
    workers.push(worker);
    if (started) void worker.start();

    return {
      find,
      failure(key) {
        const outcome = find(key)?.outcome();
        if (!outcome || outcome.ok) return undefined;
        return {
          error: outcome.error,
          at: outcome.at,
          inARow: (failedBefore.get(key) ?? 0) + 1,
          retryAt: outcome.at + memoryOf(key),
        };
      },
      request(key, input) {
        // Running or waiting here, or failed within the memory: joined.
        const known = find(key);
        if (known) return known;
        const job = follow(key);
        void (async () => {
          await table.request(name, key, input);
          if (await takeHere(key)) return;
          return watch(key, job);
        })().catch((error: unknown) => {
          if (!job.outcome()) job.end({ ok: false, error });
        });
        return job;
      },
    };
  }

  return {
    kind,
    async start() {
      started = true;
      if (stopping.signal.aborted) stopping = new AbortController();
      await Promise.all(workers.map((w) => w.start()));
    },
    async stop() {
      started = false;
      stopping.abort(new Error('the background jobs are stopping'));
      await Promise.all(workers.map((w) => w.stop()));
    },
  };
}

const describe = (error: unknown) =>
  (error instanceof Error ? `${error.name}: ${error.message}` : String(error)).slice(0, 500);
