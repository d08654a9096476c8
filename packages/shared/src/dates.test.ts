import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dayRangeToBounds, dayToBounds, instantToIsoDay, isIsoDay } from './dates';

describe('dayToBounds', () => {
  it('gives a UTC day its 24 hours, inclusive at both ends', () => {
    expect(dayToBounds('2026-03-14', 'UTC')).toEqual({
      from: Date.UTC(2026, 2, 14),
      to: Date.UTC(2026, 2, 15) - 1,
    });
  });

  it('follows the zone offset', () => {
    expect(dayToBounds('2026-01-15', 'America/New_York')).toEqual({
      from: Date.UTC(2026, 0, 15, 5),
      to: Date.UTC(2026, 0, 16, 5) - 1,
    });
    expect(dayToBounds('2026-01-15', 'Asia/Kolkata').from).toBe(Date.UTC(2026, 0, 14, 18, 30));
  });

  it('makes the spring-forward day 23 hours and the fall-back day 25 hours long', () => {
    const spring = dayToBounds('2026-03-08', 'America/New_York');
    expect(spring.to - spring.from + 1).toBe(23 * 3_600_000);
    const fall = dayToBounds('2026-11-01', 'America/New_York');
    expect(fall.to - fall.from + 1).toBe(25 * 3_600_000);
  });

  it('starts the day at 01:00 where midnight does not exist (Santiago, DST at midnight)', () => {
    // Chile moves clocks from 00:00 to 01:00 on the first Sunday of September.
    const b = dayToBounds('2026-09-06', 'America/Santiago');
    expect(instantToIsoDay(b.from, 'America/Santiago')).toBe('2026-09-06');
    expect(instantToIsoDay(b.from - 1, 'America/Santiago')).toBe('2026-09-05');
    expect(b.to - b.from + 1).toBe(23 * 3_600_000);
  });

  it('tiles consecutive days with no gap or overlap in any zone', () => {
    const zones = [
      'UTC',
      'America/New_York',
      'Europe/Berlin',
      'Australia/Lord_Howe',
      'Asia/Kathmandu',
      'America/Santiago',
    ];
    fc.assert(
      fc.property(
        fc.constantFrom(...zones),
        fc.integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2040, 0, 1) }),
        (zone, instant) => {
          const day = instantToIsoDay(instant, zone);
          const b = dayToBounds(day, zone);
          expect(b.from).toBeLessThanOrEqual(instant);
          expect(b.to).toBeGreaterThanOrEqual(instant);
          expect(instantToIsoDay(b.from - 1, zone)).not.toBe(day);
          expect(instantToIsoDay(b.to + 1, zone)).not.toBe(day);
          expect(dayToBounds(instantToIsoDay(b.to + 1, zone), zone).from).toBe(b.to + 1);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('refuses what is not a calendar day', () => {
    expect(() => dayToBounds('2026-02-30', 'UTC')).toThrow(RangeError);
    expect(isIsoDay('2026-13-01')).toBe(false);
    expect(isIsoDay('2024-02-29')).toBe(true);
  });
});

describe('dayRangeToBounds', () => {
  it('leaves an open end open', () => {
    expect(dayRangeToBounds(undefined, '2026-01-01', 'UTC')).toEqual({
      to: Date.UTC(2026, 0, 2) - 1,
    });
    expect(dayRangeToBounds('2026-01-01', undefined, 'UTC')).toEqual({
      from: Date.UTC(2026, 0, 1),
    });
  });
});
