/**
 * Work a request starts and others join, in this process: one job per key at a time, which
 * requests start or join, whose progress they can read while it runs, and whose outcome is
 * remembered for a while so that a burst of requests neither starts it again nor forgets that
 * it just failed. The Overview's computations run on it (their result goes to the requests
 * waiting, not to a table), one replica at a time per period through a shared lock.
 *
 * Background work the replicas share, which must run once whichever replica asks and survive a
 * replica's death (the index syncs, alert delivery), is not this: it is rows of a table taken by
 * one worker (`background-jobs.ts`, `job-worker.ts`). The index sync's work can also run here,
 * as its tests and the benchmark run it.
 *
 * `in-process-job-runner.ts` is the implementation: jobs run in this process, with an optional
 * shared lock (`platform/locks`) for the replicas.
 */
export interface JobRunner {
  /**
   * The job of `key`: the one running, or remembered (finished or failed within its memory),
   * is joined and `work` is not run; otherwise `work` starts now with `progress` as its
   * progress object, which the work updates and readers see.
   */
  start<P extends object, R = void>(
    key: string,
    work: (job: JobContext<P>) => Promise<R>,
    progress: P,
  ): Job<P, R>;
  /** The job of `key` running or remembered now, if any. */
  find<P extends object, R = void>(key: string): Job<P, R> | undefined;
  /** When the failed job of `key` may be started again (undefined when it is not failed). */
  retryAt(key: string): number | undefined;
}

export type JobState = 'waiting' | 'running' | 'succeeded' | 'failed';

export interface Job<P extends object, R = void> {
  readonly key: string;
  /** What the work has reported so far (its own shape, updated in place). */
  readonly progress: P;
  /** Settles when the job ends; never rejects (`outcome()` says how it ended). */
  readonly done: Promise<void>;
  /** `waiting`: for another replica's work of the key to end; then `running`, then an end. */
  state(): JobState;
  /** Once ended: its result, or its failure and when it failed (the runner's clock). */
  outcome(): JobOutcome<R> | undefined;
}

export type JobOutcome<R> =
  | { ok: true; result: R; at: number }
  | { ok: false; error: unknown; at: number };

export interface JobContext<P extends object> {
  readonly key: string;
  readonly progress: P;
  /** Aborted when the process is being shut down (the grace period's end): stop soon. */
  readonly signal: AbortSignal;
}
