// The lag the index reports: owed from the first ask after a success, however often asked
// since, until that sub account is synced; the longest-owed one counts.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../test/manual-clock';
import { syncLag } from './sync-lag';

describe('the index sync lag', () => {
  it('is 0 with nothing owed, and counts from the first ask, not the latest', () => {
    const clock = new ManualClock();
    const lag = syncLag(clock);
    expect(lag.seconds()).toBe(0);
    lag.owed('sub-a');
    clock.advance(30_000);
    lag.owed('sub-a');
    lag.owed('sub-b');
    clock.advance(15_000);
    expect(lag.seconds()).toBe(45);
  });

  it('drops a sub account once synced (here or elsewhere); the next longest-owed counts', () => {
    const clock = new ManualClock();
    const lag = syncLag(clock);
    lag.owed('sub-a');
    clock.advance(60_000);
    lag.owed('sub-b');
    clock.advance(10_000);
    lag.settled('sub-a');
    expect(lag.seconds()).toBe(10);
    lag.settled('sub-b');
    expect(lag.seconds()).toBe(0);
    // Owed again after a success: from the new ask.
    lag.owed('sub-a');
    clock.advance(5_000);
    expect(lag.seconds()).toBe(5);
  });

  it('tracks at most 10 000 sub accounts (ids come from requests)', () => {
    const clock = new ManualClock();
    const lag = syncLag(clock);
    for (let i = 0; i < 10_000; i++) lag.owed(`sub-${i}`);
    clock.advance(1_000);
    lag.owed('one-too-many');
    for (let i = 0; i < 10_000; i++) lag.settled(`sub-${i}`);
    expect(lag.seconds()).toBe(0);
  });
});
