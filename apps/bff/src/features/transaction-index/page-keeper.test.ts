// How often a sync keeps the pages of its open ranges (`pageKeeper`): a write of kept pages takes
// its share of the time at most, and the next never waits longer than the longest wait after one
// ends (the pages read meanwhile are what a killed sync loses). Timers and clock faked: what is
// tested is when each write begins.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { SyncRangePage } from './index-store';
import { KEEP_LONGEST_WAIT_MS, pageKeeper } from './index-sync';

const page = (from: number): SyncRangePage => ({
  from,
  to: from + 1,
  askTo: from + 1,
  page: 1,
  rows: [],
});

describe('pageKeeper', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('waits t ÷ share after a short write began, and its longest wait after a long one ended', async () => {
    const began: number[] = [];
    const kept: number[][] = [];
    const takes = [5, 100, 5];
    const keeper = pageKeeper(async (pages) => {
      const t = takes[began.length] ?? 0;
      began.push(performance.now());
      kept.push(pages.map((p) => p.from));
      await new Promise((r) => setTimeout(r, t));
    }, 0.05);
    const t0 = performance.now();
    keeper.page(page(1)); // kept at once: nothing was written before
    await vi.advanceTimersByTimeAsync(10);
    keeper.page(page(2));
    keeper.page(page(3));
    // 5 ms of writing at a 5 % share: the next write 100 ms after the first began.
    await vi.advanceTimersByTimeAsync(200);
    keeper.page(page(4));
    // The second took 100 ms: at a 5 % share the next would begin 2 s after it began; it
    // begins the longest wait after it ended.
    await vi.advanceTimersByTimeAsync(3_000);
    expect(kept).toEqual([[1], [2, 3], [4]]);
    // 100 + 100 + 250, where the share alone says 100 + 2,000.
    expect(KEEP_LONGEST_WAIT_MS).toBe(250);
    expect(began.map((b) => b - t0)).toEqual([0, 100, 450]);
  });

  it('keeps every waiting page at once when flushed', async () => {
    const kept: number[][] = [];
    const keeper = pageKeeper(async (pages) => {
      kept.push(pages.map((p) => p.from));
      await new Promise((r) => setTimeout(r, 50));
    }, 0.05);
    keeper.page(page(1));
    keeper.page(page(2));
    const flushed = keeper.flush();
    await vi.advanceTimersByTimeAsync(100);
    await flushed;
    expect(kept).toEqual([[1], [2]]);
  });
});
