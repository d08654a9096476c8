import { describe, expect, it } from 'vitest';
import { LockWaitTimeoutError } from './keyed-lock';
import { keyedLockContract } from './keyed-lock.contract';
import { MemoryKeyedLock } from './memory-keyed-lock';

keyedLockContract('MemoryKeyedLock', (waitMs) => new MemoryKeyedLock({ waitMs }));

describe('MemoryKeyedLock', () => {
  it('keeps nothing per key once its tasks have settled, whether they passed or failed', async () => {
    const lock = new MemoryKeyedLock({ waitMs: 60_000 });
    await Promise.allSettled(
      Array.from({ length: 500 }, (_, i) =>
        lock.run(`card:${i % 50}`, async () => {
          if (i % 3 === 0) throw new Error('refused');
          return i;
        }),
      ),
    );
    expect(lock.size).toBe(0);
    expect(lock.waiting).toBe(0);
  });

  it('drops a waiter that gave up at once, not when the holder ends', async () => {
    const lock = new MemoryKeyedLock({ waitMs: 10 });
    let finish: () => void = () => {};
    const held = lock.run('card:1', () => new Promise<void>((resolve) => (finish = resolve)));
    const refusals = await Promise.allSettled(
      Array.from({ length: 20 }, () => lock.run('card:1', async () => 'ran')),
    );
    expect(
      refusals.every((r) => r.status === 'rejected' && r.reason instanceof LockWaitTimeoutError),
    ).toBe(true);
    expect(lock.waiting).toBe(0);
    expect(lock.size).toBe(1);
    finish();
    await held;
    expect(lock.size).toBe(0);
  });
});
