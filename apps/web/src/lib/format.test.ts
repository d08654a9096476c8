import { describe, expect, it } from 'vitest';
import { formatShortDateTime, formatTimeLeft, formatUpdatedAt } from './format';

describe('compact date and time', () => {
  const now = Date.parse('2026-11-24T12:00:00Z');

  it('leaves out the year of this year, and shows it for another', () => {
    expect(formatShortDateTime('2026-11-24T16:48:00Z', now)).toMatch(/^Nov 24, \d{1,2}:48\s[AP]M$/);
    expect(formatShortDateTime('2025-11-24T16:48:00Z', now)).toMatch(
      /^Nov 24, 2025, \d{1,2}:48\s[AP]M$/,
    );
    expect(formatShortDateTime(undefined, now)).toBe('—');
    expect(formatShortDateTime('not a date', now)).toBe('not a date');
  });
});

describe('when a list was last brought up to date', () => {
  it('is a 12-hour time to the second today, with the day on another day, as the rest of the app', () => {
    const now = new Date(2026, 10, 24, 23, 0, 0).getTime();
    expect(formatUpdatedAt(new Date(2026, 10, 24, 22, 44, 10).toISOString(), now)).toMatch(
      /^10:44:10\sPM$/,
    );
    expect(formatUpdatedAt(new Date(2026, 10, 23, 9, 5, 0).toISOString(), now)).toMatch(
      /^Nov 23, 9:05:00\sAM$/,
    );
  });
});

describe('how long a running sync has left', () => {
  it('says an estimate in minutes, hours past 90 minutes, and never a negative time', () => {
    const now = 1_000_000_000;
    expect(formatTimeLeft(now - 5_000, now)).toBe('less than a minute left');
    expect(formatTimeLeft(now + 20_000, now)).toBe('less than a minute left');
    expect(formatTimeLeft(now + 60_000, now)).toBe('about 1 minute left');
    expect(formatTimeLeft(now + 4 * 60_000 + 20_000, now)).toBe('about 4 minutes left');
    expect(formatTimeLeft(now + 89 * 60_000, now)).toBe('about 89 minutes left');
    expect(formatTimeLeft(now + 150 * 60_000, now)).toBe('about 3 hours left');
  });
});
