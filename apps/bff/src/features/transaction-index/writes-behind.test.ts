// A sync's writes behind its walk (`writesBehind`): a finished range is handed in and the walk
// goes on while few rows wait; past `WRITES_BEHIND_ROWS` a range waits for its own write; the
// first write that fails stops the sync and every hand-in after it.
import { describe, expect, it, vi } from 'vitest';
import { grouped, WRITE_GROUP_ROWS, WRITES_BEHIND_ROWS, writesBehind } from './index-sync';

type Days = Parameters<ReturnType<typeof writesBehind>['write']>[0];

const daysOf = (rows: number): Days => [
  {
    day: '2026-11-02',
    rows: Array.from({ length: rows }, () => ({}) as Days[number]['rows'][number]),
  },
];

/** A write held until `release` (or failed by `fail`), one per hand-in, in order. */
function heldWrites() {
  const held: { release(): void; fail(error: Error): void; rows: number }[] = [];
  const write = (days: Days) =>
    new Promise<void>((resolve, reject) => {
      held.push({
        release: resolve,
        fail: reject,
        rows: days.reduce((n, d) => n + d.rows.length, 0),
      });
    });
  return { held, write };
}

/** Whether `promise` has settled once the queue of pending jobs has run. */
async function settledYet(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  promise.then(
    () => {
      settled = true;
    },
    () => {
      settled = true;
    },
  );
  await new Promise((resolve) => setImmediate(resolve));
  return settled;
}

describe('a sync’s writes behind its walk', () => {
  it('lets the walk go on while fewer rows than the bound wait, and settles once all are written', async () => {
    const { held, write } = heldWrites();
    const writes = writesBehind(write);
    await writes.write(daysOf(10));
    await writes.write(daysOf(WRITES_BEHIND_ROWS - 10));
    expect(held.map((h) => h.rows)).toEqual([10, WRITES_BEHIND_ROWS - 10]);
    const all = writes.settled();
    held[0]?.release();
    expect(await settledYet(all)).toBe(false);
    held[1]?.release();
    await expect(all).resolves.toBeUndefined();
  });

  it('past the bound, a range waits for its own write (not for every write before it)', async () => {
    const { held, write } = heldWrites();
    const writes = writesBehind(write);
    await writes.write(daysOf(WRITES_BEHIND_ROWS));
    const over = writes.write(daysOf(1));
    expect(await settledYet(over)).toBe(false);
    held[1]?.release();
    await expect(over).resolves.toBeUndefined();
    // With the first written too, as few rows wait as before: hand-ins go through at once.
    held[0]?.release();
    await writes.settled();
    await writes.write(daysOf(1));
    expect(held).toHaveLength(3);
  });

  it('the first write that fails is told once, refuses every hand-in after it, and fails the settling', async () => {
    const { held, write } = heldWrites();
    const failed = vi.fn();
    const writes = writesBehind(write, failed);
    await writes.write(daysOf(1));
    await writes.write(daysOf(1));
    const broken = new Error('the index could not be written');
    held[0]?.fail(broken);
    held[1]?.fail(new Error('a later failure'));
    await expect(writes.settled()).rejects.toBe(broken);
    expect(failed).toHaveBeenCalledTimes(1);
    expect(failed).toHaveBeenCalledWith(broken);
    await expect(writes.write(daysOf(1))).rejects.toBe(broken);
    expect(held).toHaveLength(2);
  });
});

describe('a sync’s writes, grouped', () => {
  it('writes the ranges that ended while a write ran together, up to WRITE_GROUP_ROWS, a larger range alone', async () => {
    const runs: number[][] = [];
    const held: (() => void)[] = [];
    const write = grouped<number>(
      (rows) =>
        new Promise<void>((resolve) => {
          runs.push(rows);
          held.push(resolve);
        }),
      (rows) => rows,
      WRITE_GROUP_ROWS,
    );
    const half = WRITE_GROUP_ROWS / 2;
    const handed = [
      write(10),
      write(half),
      write(half - 1),
      write(2),
      write(WRITE_GROUP_ROWS * 3),
      write(1),
    ];
    for (let i = 0; i < 5; i++) {
      await new Promise((resolve) => setImmediate(resolve));
      held[i]?.();
    }
    await Promise.all(handed);
    expect(runs).toEqual([[10], [half, half - 1], [2], [WRITE_GROUP_ROWS * 3], [1]]);
  });
});
