import { describe, expect, it } from 'vitest';
import { type Period, periodDays, periods } from './periods';

describe('date presets', () => {
  // Thursday 2026-11-26; Q4 began on October 1.
  it.each<[Period, string, string]>([
    ['today', '2026-11-26', '2026-11-26'],
    ['yesterday', '2026-11-25', '2026-11-25'],
    ['this-week', '2026-11-23', '2026-11-26'],
    ['last-week', '2026-11-16', '2026-11-22'],
    ['last-7-days', '2026-11-20', '2026-11-26'],
    ['last-30-days', '2026-10-28', '2026-11-26'],
    ['last-90-days', '2026-08-29', '2026-11-26'],
    ['this-month', '2026-11-01', '2026-11-26'],
    ['last-month', '2026-10-01', '2026-10-31'],
    ['this-quarter', '2026-10-01', '2026-11-26'],
    ['last-quarter', '2026-07-01', '2026-09-30'],
    ['year-to-date', '2026-01-01', '2026-11-26'],
  ])('%s on Thursday 2026-11-26 is %s to %s', (period, from, to) => {
    expect(periodDays(period, '2026-11-26')).toEqual({ from, to });
  });

  it.each<[Period, string, string, string]>([
    ['yesterday', '2026-01-01', '2025-12-31', '2025-12-31'],
    ['last-month', '2026-01-15', '2025-12-01', '2025-12-31'],
    ['last-month', '2024-03-31', '2024-02-01', '2024-02-29'],
    ['last-quarter', '2026-02-10', '2025-10-01', '2025-12-31'],
    ['this-week', '2026-11-23', '2026-11-23', '2026-11-23'],
    ['last-week', '2026-11-29', '2026-11-16', '2026-11-22'],
    ['last-7-days', '2026-03-03', '2026-02-25', '2026-03-03'],
    ['last-90-days', '2024-03-01', '2023-12-03', '2024-03-01'],
    ['last-30-days', '2025-03-01', '2025-01-31', '2025-03-01'],
  ])('%s on %s crosses the boundary: %s to %s', (period, today, from, to) => {
    expect(periodDays(period, today)).toEqual({ from, to });
  });

  it('every preset, every day of a leap year: days in order, ending no later than today', () => {
    for (let n = 0; n < 366; n++) {
      const today = new Date(Date.UTC(2024, 0, 1 + n)).toISOString().slice(0, 10);
      for (const period of periods) {
        const { from, to } = periodDays(period, today);
        expect(from <= to, `${period} ${today}`).toBe(true);
        expect(to <= today, `${period} ${today}`).toBe(true);
      }
    }
  });
});
