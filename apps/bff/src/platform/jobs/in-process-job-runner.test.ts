import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresReplicas, type SqlReplicas } from '../../test/engines/sql-replicas';
import { ManualClock } from '../../test/manual-clock';
import { MemoryKeyedLock } from '../locks/memory-keyed-lock';
import { SqlKeyedLock } from '../locks/sql-keyed-lock';
import { InProcessJobRunner } from './in-process-job-runner';
import { jobRunnerContract } from './job-runner.contract';

/** How long a lock waits before the runner asks again: well under the runner's own bound. */
const LOCK_WAIT_MS = 50;

jobRunnerContract('in process, one replica', {
  shared: false,
  replicas: (setup) => {
    const runner = new InProcessJobRunner(setup);
    return [runner, runner];
  },
});

jobRunnerContract('in process, two runners sharing an in-memory lock', {
  shared: true,
  replicas: (setup) => {
    const lock = new MemoryKeyedLock({ waitMs: LOCK_WAIT_MS });
    return [new InProcessJobRunner({ ...setup, lock }), new InProcessJobRunner({ ...setup, lock })];
  },
});

let database: SqlReplicas | undefined;
beforeAll(async () => {
  database = await postgresReplicas();
}, 60_000);
afterAll(async () => database?.close());

jobRunnerContract('two replicas sharing a PostgreSQL lock', {
  shared: true,
  replicas: (setup) => {
    if (!database) throw new Error('no database');
    return [database.a, database.b].map(
      (engine) =>
        new InProcessJobRunner({
          ...setup,
          lock: new SqlKeyedLock(engine, { waitMs: LOCK_WAIT_MS }),
        }),
    ) as [InProcessJobRunner, InProcessJobRunner];
  },
});

describe('InProcessJobRunner', () => {
  const options = () => ({
    clock: new ManualClock(),
    cutOff: new AbortController().signal,
    failureMemoryMs: 5_000,
  });

  it('remembers a result for its while when asked to, joining it instead of working again', async () => {
    const o = options();
    const runner = new InProcessJobRunner({ ...o, successMemoryMs: 10_000 });
    let runs = 0;
    const work = async () => {
      runs += 1;
      return runs * 10;
    };
    const job = runner.start('result', work, {});
    await job.done;
    o.clock.advance(9_999);
    expect(runner.start('result', work, {})).toBe(job);
    expect(job.outcome()).toMatchObject({ ok: true, result: 10 });
    o.clock.advance(1);
    await runner.start('result', work, {}).done;
    expect(runs).toBe(2);
  });

  it('keeps nothing for keys whose outcome has been forgotten', async () => {
    const o = options();
    const runner = new InProcessJobRunner(o);
    const failing = async () => {
      throw new Error('no');
    };
    await Promise.all(
      Array.from({ length: 50 }, (_, i) => runner.start(`key-${i}`, failing, {}).done),
    );
    expect(runner.size).toBe(50);
    o.clock.advance(5_000);
    expect(runner.size).toBe(0);
    await runner.start('ok', async () => {}, {}).done;
    expect(runner.size).toBe(0);
  });

  it('fails a job at once when the cut-off has already come', async () => {
    const cutOff = new AbortController();
    cutOff.abort(new Error('shutting down'));
    const lock = new MemoryKeyedLock({ waitMs: 1_000 });
    const runner = new InProcessJobRunner({ ...options(), cutOff: cutOff.signal, lock });
    let ran = false;
    const job = runner.start(
      'late',
      async () => {
        ran = true;
      },
      {},
    );
    await job.done;
    expect(ran).toBe(false);
    expect(job.outcome()).toMatchObject({ ok: false, error: new Error('shutting down') });
  });
});
