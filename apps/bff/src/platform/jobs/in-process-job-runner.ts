import { createHash } from 'node:crypto';
import type { Clock } from '../../core/clock';
import { type KeyedLock, LockWaitTimeoutError } from '../locks/keyed-lock';
import type { Job, JobContext, JobOutcome, JobRunner, JobState } from './job-runner';

export interface InProcessJobRunnerOptions {
  /** The clock outcomes are remembered by (the app's clock). */
  clock: Clock;
  /** Aborted when a shutdown's grace period ends: every job is told to stop (`JobContext.signal`). */
  cutOff: AbortSignal;
  /**
   * A lock the replicas share (`SqlKeyedLock`): the work of one key then runs on one replica
   * at a time. Without one, jobs are shared within this process only.
   */
  lock?: KeyedLock;
  /**
   * How long a failed job is remembered (joined, not run again), by `clock`: a number, or a
   * schedule by how many times in a row the key's job has failed (1 for the first), so a job
   * that keeps failing is tried again less and less often.
   */
  failureMemoryMs: number | ((failuresInARow: number) => number);
  /** How long a finished job is remembered (its result joined); 0, the default: not at all. */
  successMemoryMs?: number;
  /**
   * How long a job waits at most for another replica's work of its key (the lock's own wait
   * is retried until then); then it fails with the lock's `LockWaitTimeoutError`.
   */
  maxLockWaitMs?: number;
  /** The lock keys' prefix: `<name>:<hash of the job's key>`. */
  name?: string;
}

const DEFAULT_MAX_LOCK_WAIT_MS = 60_000;
/** Keys whose failures in a row are counted at most (the oldest forgotten past it). */
const FAILURE_COUNTS_KEPT = 10_000;

/**
 * Jobs in this process (`JobRunner`): a map of keys to jobs, each job's work started once and
 * joined by everyone asking while it runs or is remembered. Outcomes are forgotten once their
 * memory has passed, checked whenever the runner is asked, so the map holds only jobs that
 * run or were asked about lately.
 */
export class InProcessJobRunner implements JobRunner {
  private readonly jobs = new Map<string, RunningJob<object, unknown>>();
  /** Failures in a row before the job of a key now, by key (none once one succeeds). */
  private readonly failedBefore = new Map<string, number>();
  private readonly successMemoryMs: number;
  private readonly maxLockWaitMs: number;
  private readonly name: string;

  constructor(private readonly options: InProcessJobRunnerOptions) {
    this.successMemoryMs = options.successMemoryMs ?? 0;
    this.maxLockWaitMs = options.maxLockWaitMs ?? DEFAULT_MAX_LOCK_WAIT_MS;
    this.name = options.name ?? 'job';
  }

  /** Jobs running or remembered now. */
  get size(): number {
    this.forget();
    return this.jobs.size;
  }

  find<P extends object, R = void>(key: string): Job<P, R> | undefined {
    const job = this.jobs.get(key);
    if (!job) return undefined;
    if (this.expired(key, job)) {
      this.drop(key, job);
      return undefined;
    }
    return job as unknown as Job<P, R>;
  }

  /** When a request may start the failed job of `key` again (undefined: it is not failed). */
  retryAt(key: string): number | undefined {
    const job = this.find(key);
    const outcome = job?.outcome();
    if (!job || !outcome || outcome.ok) return undefined;
    return outcome.at + this.failureMemory(key);
  }

  start<P extends object, R = void>(
    key: string,
    work: (job: JobContext<P>) => Promise<R>,
    progress: P,
  ): Job<P, R> {
    this.forget();
    const known = this.find<P, R>(key);
    if (known) return known;
    const job = new RunningJob<P, R>(key, progress, this.options.lock ? 'waiting' : 'running');
    this.jobs.set(key, job as unknown as RunningJob<object, unknown>);
    const context: JobContext<P> = { key, progress, signal: this.options.cutOff };
    job.run(
      () => this.exclusive(key, job, () => work(context)),
      () => this.options.clock.now(),
      () => {
        // Not remembered: gone as it ends (unless a newer job has the key by now).
        if (this.successMemoryMs <= 0 && job.outcome()?.ok && this.jobs.get(key) === job) {
          this.drop(key, job);
        }
      },
    );
    return job;
  }

  /** `work` alone among the replicas sharing the lock, waiting for the key's turn if need be. */
  private async exclusive<R>(
    key: string,
    job: RunningJob<object, R>,
    work: () => Promise<R>,
  ): Promise<R> {
    const lock = this.options.lock;
    if (!lock) return work();
    const lockKey = `${this.name}:${createHash('sha256').update(key).digest('hex').slice(0, 32)}`;
    const started = performance.now();
    for (;;) {
      this.options.cutOff.throwIfAborted();
      let ran = false;
      try {
        return await lock.run(lockKey, () => {
          ran = true;
          job.begin();
          return work();
        });
      } catch (error) {
        // The other replica's work runs on: wait again, up to the bound.
        const waitMore =
          !ran &&
          error instanceof LockWaitTimeoutError &&
          performance.now() - started < this.maxLockWaitMs;
        if (!waitMore) throw error;
      }
    }
  }

  private failureMemory(key: string): number {
    const memory = this.options.failureMemoryMs;
    return typeof memory === 'number' ? memory : memory((this.failedBefore.get(key) ?? 0) + 1);
  }

  private expired(key: string, job: RunningJob<object, unknown>): boolean {
    const outcome = job.outcome();
    if (!outcome) return false;
    const memory = outcome.ok ? this.successMemoryMs : this.failureMemory(key);
    return this.options.clock.now() - outcome.at >= memory;
  }

  /** Forgets an ended job, keeping count of its key's failures in a row. */
  private drop(key: string, job: RunningJob<object, unknown>): void {
    this.jobs.delete(key);
    if (job.outcome()?.ok !== false) {
      this.failedBefore.delete(key);
      return;
    }
    this.failedBefore.set(key, (this.failedBefore.get(key) ?? 0) + 1);
    // Keys never asked again would stay: the oldest go past a bound (their count starts over).
    if (this.failedBefore.size > FAILURE_COUNTS_KEPT) {
      const oldest = this.failedBefore.keys().next().value;
      if (oldest !== undefined) this.failedBefore.delete(oldest);
    }
  }

  private forget(): void {
    for (const [key, job] of this.jobs) if (this.expired(key, job)) this.drop(key, job);
  }
}

class RunningJob<P extends object, R> implements Job<P, R> {
  done: Promise<void> = Promise.resolve();
  private current: JobState;
  private ended: JobOutcome<R> | undefined;

  constructor(
    readonly key: string,
    readonly progress: P,
    initial: JobState,
  ) {
    this.current = initial;
  }

  state(): JobState {
    return this.current;
  }

  outcome(): JobOutcome<R> | undefined {
    return this.ended;
  }

  /** The work has its turn. */
  begin(): void {
    if (this.current === 'waiting') this.current = 'running';
  }

  run(work: () => Promise<R>, now: () => number, after: () => void): void {
    this.done = (async () => {
      try {
        const result = await work();
        this.ended = { ok: true, result, at: now() };
        this.current = 'succeeded';
      } catch (error) {
        this.ended = { ok: false, error, at: now() };
        this.current = 'failed';
      }
      after();
    })();
  }
}
