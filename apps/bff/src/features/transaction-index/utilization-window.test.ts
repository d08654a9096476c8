import { addDays, dayToBounds, instantToIsoDay } from '@card-console/shared/dates';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { currentUtilizationWindow } from './utilization-window';

const at = (day: string, zone = 'UTC') => dayToBounds(day, zone).from + 12 * 3_600_000;
const days = (preset: string, today: string, startDate?: string, timezone = 'UTC') => {
  const w = currentUtilizationWindow({ preset, timezone, startDate }, at(today, timezone));
  return w && [w.fromDay, w.toDay];
};

describe('the current window of a utilisation limit', () => {
  it.each([
    ['daily', '2026-11-26', undefined, ['2026-11-26', '2026-11-26']],
    ['weekly', '2026-11-26', undefined, ['2026-11-23', '2026-11-29']],
    ['weekly', '2026-11-26', '2026-11-05', ['2026-11-26', '2026-12-02']],
    ['monthly', '2026-11-26', undefined, ['2026-11-01', '2026-11-30']],
    ['monthly', '2026-11-26', '2026-01-15', ['2026-11-15', '2026-12-14']],
    ['monthly', '2026-11-10', '2026-01-15', ['2026-10-15', '2026-11-14']],
    ['monthly', '2027-02-28', '2026-01-31', ['2027-02-28', '2027-03-30']],
    ['monthly', '2027-02-27', '2026-01-31', ['2027-01-31', '2027-02-27']],
    ['yearly', '2026-11-26', undefined, ['2026-01-01', '2026-12-31']],
    ['yearly', '2026-11-26', '2024-03-10', ['2026-03-10', '2027-03-09']],
    ['yearly', '2027-03-01', '2024-02-29', ['2027-02-28', '2028-02-28']],
    ['monthly', '2026-11-26', '2027-01-15', ['2027-01-15', '2027-02-14']],
  ])('%s on %s from %s: %j', (preset, today, start, want) => {
    // 2026-11-26 is a Thursday; a weekly start on 2026-11-05, a Thursday too, begins its
    // fourth window that day.
    expect(days(preset, today, start)).toEqual(want);
  });

  it('is unknown for "collective", another preset, a start that is not a day, or a zone that is not one', () => {
    expect(days('collective', '2026-11-26')).toBeUndefined();
    expect(days('fortnightly', '2026-11-26')).toBeUndefined();
    expect(days('monthly', '2026-11-26', '2026-13-01')).toBeUndefined();
    expect(
      currentUtilizationWindow({ preset: 'daily', timezone: 'Mars/Olympus' }, Date.now()),
    ).toBeUndefined();
  });

  it('reads a blank zone or start as none, as an absent one: UTC, calendar windows', () => {
    const now = at('2026-11-26');
    expect(
      currentUtilizationWindow({ preset: 'monthly', timezone: '', startDate: ' ' }, now),
    ).toEqual(currentUtilizationWindow({ preset: 'monthly' }, now));
    expect(days('monthly', '2026-11-26', '')).toEqual(['2026-11-01', '2026-11-30']);
  });

  it("days are the limit's zone's: its midnight, not UTC's", () => {
    const zone = 'America/Los_Angeles';
    // 07:00 UTC on 26 November is still the 25th in Los Angeles.
    const now = Date.parse('2026-11-26T07:00:00Z');
    const w = currentUtilizationWindow({ preset: 'daily', timezone: zone }, now);
    expect(w?.fromDay).toBe('2026-11-25');
    expect(w?.from).toBe(Date.parse('2026-11-25T08:00:00Z'));
    expect(w?.to).toBe(Date.parse('2026-11-26T08:00:00Z'));
  });

  it('every window holds today (or is the first, before the start), has its length, and the next one starts the day after it ends', () => {
    const day = fc.integer({ min: 0, max: 3_000 }).map((n) => addDays('2024-01-01', n));
    fc.assert(
      fc.property(
        fc.constantFrom('daily', 'weekly', 'monthly', 'yearly'),
        fc.option(day, { nil: undefined }),
        day,
        fc.constantFrom('UTC', 'America/New_York', 'Asia/Kolkata', 'Pacific/Chatham'),
        (preset, start, today, zone) => {
          const now = at(today, zone);
          const w = currentUtilizationWindow({ preset, startDate: start, timezone: zone }, now);
          if (!w) throw new Error('a known preset has a window');
          const length =
            Math.round(
              (Date.parse(`${w.toDay}T00:00:00Z`) - Date.parse(`${w.fromDay}T00:00:00Z`)) /
                86_400_000,
            ) + 1;
          const lengths: Record<string, [number, number]> = {
            daily: [1, 1],
            weekly: [7, 7],
            monthly: [28, 31],
            yearly: [365, 366],
          };
          const [min, max] = lengths[preset] as [number, number];
          expect(length).toBeGreaterThanOrEqual(min);
          expect(length).toBeLessThanOrEqual(max);
          if (start !== undefined && start > today) expect(w.fromDay).toBe(start);
          else {
            expect(w.fromDay <= today && today <= w.toDay).toBe(true);
            if (start !== undefined) expect(w.fromDay >= start).toBe(true);
          }
          expect(instantToIsoDay(w.from, zone)).toBe(w.fromDay);
          expect(instantToIsoDay(w.to - 1, zone)).toBe(w.toDay);
          const next = currentUtilizationWindow(
            { preset, startDate: start, timezone: zone },
            at(addDays(w.toDay, 1), zone),
          );
          expect(next?.fromDay).toBe(addDays(w.toDay, 1));
        },
      ),
      { numRuns: 500 },
    );
  });
});
