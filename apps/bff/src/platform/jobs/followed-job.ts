// What a replica sees of a background job (`Job`): its progress and state while it runs, here
// or on another replica (read from the jobs' table), and how it ended.

import type { Job, JobOutcome, JobState } from './job-runner';
import type { JobRow } from './job-table';

export type { Job, JobContext } from './job-runner';

export class FollowedJob<P extends object> implements Job<P> {
  readonly done: Promise<void>;
  /** Run by this replica (its progress object is the run's own). */
  here = false;
  private current: JobState = 'waiting';
  private ended: JobOutcome<void> | undefined;
  private settle: () => void = () => {};

  constructor(
    readonly key: string,
    readonly progress: P,
    private readonly now: () => number,
  ) {
    this.done = new Promise((resolve) => {
      this.settle = resolve;
    });
  }

  state(): JobState {
    return this.current;
  }

  outcome(): JobOutcome<void> | undefined {
    return this.ended;
  }

  /** This replica runs it now. */
  begin(): void {
    this.here = true;
    if (!this.ended) this.current = 'running';
  }

  end(outcome: { ok: true; result: undefined } | { ok: false; error: unknown }): void {
    if (this.ended) return;
    this.ended = { ...outcome, at: this.now() };
    this.current = outcome.ok ? 'succeeded' : 'failed';
    this.settle();
  }

  /** The job's row, run elsewhere: its progress, state and end. */
  saw(row: JobRow<unknown, P>): void {
    if (this.here || this.ended) return;
    if (row.progress) Object.assign(this.progress, row.progress);
    if (row.state === 'succeeded') this.end({ ok: true, result: undefined });
    else if (row.state === 'failed')
      this.end({ ok: false, error: new Error(row.lastError ?? 'the job failed') });
    else this.current = row.state === 'running' ? 'running' : 'waiting';
  }
}
