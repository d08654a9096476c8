// The adaptive pace a walk can carry: more pages at once while the source answers quickly,
// fewer and spaced out once it says it is busy (a 429), and back up as it recovers.
import { describe, expect, it } from 'vitest';
import { adaptivePace } from './pace';

const options = { startAtOnce: 2, maxAtOnce: 5, growEvery: 3, quickMs: 100, busyGapMs: 500 };

describe('adaptivePace', () => {
  it('grows by one page at once after every run of quick answers, up to its most', () => {
    const pace = adaptivePace(options);
    expect(pace.atOnce()).toBe(2);
    pace.answered(10);
    pace.answered(10);
    expect(pace.atOnce()).toBe(2);
    pace.answered(10);
    expect(pace.atOnce()).toBe(3);
    for (let i = 0; i < 30; i++) pace.answered(10);
    expect(pace.atOnce()).toBe(5);
    expect(pace.gap()).toBe(0);
  });

  it('a slow answer does not grow it and starts the run again', () => {
    const pace = adaptivePace(options);
    pace.answered(10);
    pace.answered(10);
    pace.answered(150);
    pace.answered(10);
    pace.answered(10);
    expect(pace.atOnce()).toBe(2);
    pace.answered(10);
    expect(pace.atOnce()).toBe(3);
  });

  it('a busy source halves the pages at once and sets the gap it asked for', () => {
    const pace = adaptivePace(options);
    for (let i = 0; i < 6; i++) pace.answered(10);
    expect(pace.atOnce()).toBe(4);
    pace.busy(2_000);
    expect(pace.atOnce()).toBe(2);
    expect(pace.gap()).toBe(2_000);
    pace.busy(2_000);
    expect(pace.atOnce()).toBe(1);
    expect(pace.gap()).toBe(4_000);
    pace.busy();
    expect(pace.atOnce()).toBe(1);
    expect(pace.gap()).toBe(8_000);
  });

  it('without a wait asked for, backs off by its own gap; never past its longest gap', () => {
    const pace = adaptivePace({ ...options, maxGapMs: 3_000 });
    pace.busy();
    expect(pace.gap()).toBe(500);
    pace.busy(60_000);
    expect(pace.gap()).toBe(3_000);
  });

  it('quick answers halve the gap away before it grows again', () => {
    const pace = adaptivePace(options);
    pace.busy(800);
    const gaps: number[] = [];
    for (let i = 0; i < 12; i++) {
      pace.answered(10);
      gaps.push(pace.gap());
    }
    expect(gaps.slice(0, 5)).toEqual([400, 200, 100, 50, 25]);
    expect(pace.gap()).toBe(0);
    expect(pace.atOnce()).toBe(2);
  });
});
