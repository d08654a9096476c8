// One behaviour suite for every JobRunner: in one process, and across replicas sharing a lock.
import { describe, expect, it } from 'vitest';
import { expectFailureSchedule, flakyWork } from '../../test/failure-schedule';
import { ManualClock } from '../../test/manual-clock';
import { LockWaitTimeoutError } from '../locks/keyed-lock';
import type { JobContext, JobRunner } from './job-runner';

export interface JobRunnerSetup {
  clock: ManualClock;
  cutOff: AbortSignal;
  failureMemoryMs: number | ((failuresInARow: number) => number);
  /** The most a job waits for another replica's work of its key. */
  maxLockWaitMs: number;
}

export interface JobRunnerContractOptions {
  /**
   * Two replicas' runners (for a runner shared by one process only, the same runner twice:
   * one process is one replica).
   */
  replicas(setup: JobRunnerSetup): [JobRunner, JobRunner];
  /** Whether the two replicas are distinct processes that share the work through a lock. */
  shared: boolean;
}

/** Work that runs until the test lets it end, and logs when it starts. */
function heldWork(log: string[], name: string) {
  let finish: (value: string) => void = () => {};
  let fail: (error: Error) => void = () => {};
  let seen: JobContext<{ steps: number }> | undefined;
  const work = (job: JobContext<{ steps: number }>) => {
    log.push(`start ${name}`);
    seen = job;
    return new Promise<string>((resolve, reject) => {
      finish = (value) => {
        log.push(`end ${name}`);
        resolve(value);
      };
      fail = (error) => {
        log.push(`fail ${name}`);
        reject(error);
      };
    });
  };
  return {
    work,
    finish: (value = name) => finish(value),
    fail: (error: Error) => fail(error),
    context: () => seen,
  };
}

async function until(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((resolve) => setTimeout(resolve, 2));
}

/** Long enough for a runner that wrongly started work to have started it. */
const quiet = () => new Promise((resolve) => setTimeout(resolve, 60));

export function jobRunnerContract(name: string, options: JobRunnerContractOptions) {
  const setup = (overrides: Partial<Omit<JobRunnerSetup, 'clock' | 'cutOff'>> = {}) => {
    const clock = new ManualClock(Date.UTC(2026, 10, 20));
    const cutOff = new AbortController();
    const [a, b] = options.replicas({
      clock,
      cutOff: cutOff.signal,
      failureMemoryMs: 5_000,
      maxLockWaitMs: 30_000,
      ...overrides,
    });
    return { a, b, clock, cutOff };
  };

  describe(`JobRunner contract: ${name}`, () => {
    it('runs the work of a key once, however many start it while it runs', async () => {
      const { a } = setup();
      const log: string[] = [];
      const held = heldWork(log, 'x');
      const jobs = Array.from({ length: 5 }, () => a.start('key-1', held.work, { steps: 0 }));
      await until(() => log.length === 1);
      for (const job of jobs) expect(job).toBe(jobs[0]);
      expect(a.find('key-1')).toBe(jobs[0]);
      held.finish('counted');
      await jobs[0]?.done;
      expect(log).toEqual(['start x', 'end x']);
      expect(jobs[0]?.state()).toBe('succeeded');
      expect(jobs[0]?.outcome()).toMatchObject({ ok: true, result: 'counted' });
    });

    it('shows the progress the work reports while it runs', async () => {
      const { a } = setup();
      const log: string[] = [];
      const held = heldWork(log, 'x');
      const job = a.start('progress', held.work, { steps: 0 });
      await until(() => held.context() !== undefined);
      expect(job.state()).toBe('running');
      const context = held.context();
      if (context) context.progress.steps = 3;
      expect(a.find<{ steps: number }, string>('progress')?.progress.steps).toBe(3);
      held.finish();
      await job.done;
    });

    it('runs the work of different keys side by side', async () => {
      const { a } = setup();
      const log: string[] = [];
      const one = heldWork(log, 'one');
      const two = heldWork(log, 'two');
      const jobs = [
        a.start('k-one', one.work, { steps: 0 }),
        a.start('k-two', two.work, { steps: 0 }),
      ];
      await until(() => log.length === 2);
      expect([...log].sort()).toEqual(['start one', 'start two']);
      one.finish();
      two.finish();
      await Promise.all(jobs.map((j) => j.done));
    });

    it('a finished job is not remembered: the key runs again when started again', async () => {
      const { a } = setup();
      let runs = 0;
      const work = async () => {
        runs += 1;
      };
      await a.start('again', work, { steps: 0 }).done;
      expect(a.find('again')).toBeUndefined();
      await a.start('again', work, { steps: 0 }).done;
      expect(runs).toBe(2);
    });

    it('a failed job is remembered for its while, by the clock, then run again', async () => {
      const { a, clock } = setup({ failureMemoryMs: 5_000 });
      let runs = 0;
      const failing = async () => {
        runs += 1;
        throw new Error('the service fell over');
      };
      const job = a.start('failing', failing, { steps: 0 });
      await job.done;
      expect(job.state()).toBe('failed');
      expect(job.outcome()).toMatchObject({ ok: false, error: new Error('the service fell over') });
      clock.advance(4_999);
      // Joined, not run again: requests say it failed.
      expect(a.start('failing', failing, { steps: 0 })).toBe(job);
      expect(a.find('failing')).toBe(job);
      expect(runs).toBe(1);
      clock.advance(1);
      expect(a.find('failing')).toBeUndefined();
      await a.start('failing', failing, { steps: 0 }).done;
      expect(runs).toBe(2);
    });

    it('a job that keeps failing is remembered longer each time in a row, on its schedule; a success resets it', async () => {
      const { a, clock } = setup({ failureMemoryMs: (inARow) => inARow * 1_000 });
      const flaky = { fail: true, runs: 0 };
      const work = flakyWork(flaky);
      await expectFailureSchedule({
        clock,
        flaky,
        ask: () => a.start('flaky', work, { steps: 0 }).done,
        retryAt: () => a.retryAt('flaky'),
      });
    });

    it('tells every job to stop when the cut-off comes', async () => {
      const { a, cutOff } = setup();
      const job = a.start(
        'long',
        (context) =>
          new Promise<void>((_, reject) => {
            context.signal.addEventListener('abort', () => reject(context.signal.reason), {
              once: true,
            });
          }),
        { steps: 0 },
      );
      // Running once its lock is taken: a round trip to PostgreSQL, more than 60 ms on a loaded
      // machine (a clean clone's run found it still waiting).
      await until(() => job.state() === 'running');
      cutOff.abort(new Error('shutting down'));
      await job.done;
      expect(job.outcome()).toMatchObject({ ok: false, error: new Error('shutting down') });
    });

    it('a key started on two replicas at once runs on one at a time, never side by side', async () => {
      const { a, b } = setup();
      const log: string[] = [];
      // The results both replicas share (as the Overview's days in PostgreSQL).
      const results = new Map<string, string>();
      let running = 0;
      let most = 0;
      const held: ReturnType<typeof heldWork>[] = [];
      const work = (replica: string) => async (context: JobContext<{ steps: number }>) => {
        running += 1;
        most = Math.max(most, running);
        try {
          if (results.has(context.key)) {
            log.push(`${replica} found it done`);
            return;
          }
          const h = heldWork(log, replica);
          held.push(h);
          results.set(context.key, await h.work(context));
        } finally {
          running -= 1;
        }
      };
      const first = a.start('shared', work('a'), { steps: 0 });
      await until(() => log.length === 1);
      const second = b.start('shared', work('b'), { steps: 0 });
      await quiet();
      expect(log).toEqual(['start a']);
      if (options.shared) expect(second.state()).toBe('waiting');
      else expect(second).toBe(first);
      held[0]?.finish('computed by a');
      await Promise.all([first.done, second.done]);
      expect(most).toBe(1);
      expect(results.get('shared')).toBe('computed by a');
      expect(log).toEqual(
        options.shared ? ['start a', 'end a', 'b found it done'] : ['start a', 'end a'],
      );
      expect(second.state()).toBe('succeeded');
    });

    it('a replica whose work failed leaves the key to the other', async () => {
      const { a, b } = setup();
      const log: string[] = [];
      const failing = heldWork(log, 'a');
      const first = a.start('handed-on', failing.work, { steps: 0 });
      await until(() => log.length === 1);
      let ranOnB = false;
      const second = b.start(
        'handed-on',
        async () => {
          ranOnB = true;
        },
        { steps: 0 },
      );
      failing.fail(new Error('a fell over'));
      await Promise.all([first.done, second.done]);
      expect(first.state()).toBe('failed');
      // On one replica, the failure is what both see; on two, the second does the work.
      if (options.shared) expect(ranOnB).toBe(true);
      else expect(second).toBe(first);
    });

    if (options.shared) {
      it('waits for the other replica only so long, then fails saying so', async () => {
        const { a, b } = setup({ maxLockWaitMs: 150 });
        const log: string[] = [];
        const held = heldWork(log, 'a');
        const first = a.start('slow', held.work, { steps: 0 });
        await until(() => log.length === 1);
        let ranOnB = false;
        const second = b.start(
          'slow',
          async () => {
            ranOnB = true;
          },
          { steps: 0 },
        );
        await second.done;
        const outcome = second.outcome();
        expect(outcome?.ok).toBe(false);
        expect(outcome && !outcome.ok && outcome.error).toBeInstanceOf(LockWaitTimeoutError);
        expect(ranOnB).toBe(false);
        held.finish();
        await first.done;
      });
    }
  });
}
