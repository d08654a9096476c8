import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createLocalTimes, zoneName } from './local-time';

/** The wall clock of an instant in a zone, from Intl's date fields (not its offset names). */
function wallClock(ms: number, timeZone: string): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    })
      .formatToParts(ms)
      .map((p) => [p.type, p.value]),
  );
  return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}`;
}

/** Unix ms of a local ISO time with its offset (`…-05:00`, `…+05:45`, `…-04:56:02`). */
function instantOf(local: string): number {
  const m = /^(.{19})(?:\.\d+)?([+-])(\d{2}):(\d{2})(?::(\d{2}))?$/.exec(local);
  if (!m) throw new Error(`not a local time with offset: ${local}`);
  const offset = (Number(m[3]) * 3600 + Number(m[4]) * 60 + Number(m[5] ?? 0)) * 1000;
  return Date.parse(`${m[1]}Z`) - (m[2] === '-' ? -offset : offset);
}

describe('local times with offset', () => {
  it.each([
    // New York: clocks forward at 02:00 EST (07:00Z) on 8 March 2026, back at 02:00 EDT (06:00Z) on 1 November.
    ['America/New_York', '2026-03-08T06:59:59.000Z', '2026-03-08T01:59:59-05:00'],
    ['America/New_York', '2026-03-08T07:00:00.000Z', '2026-03-08T03:00:00-04:00'],
    ['America/New_York', '2026-11-01T05:30:00.000Z', '2026-11-01T01:30:00-04:00'],
    ['America/New_York', '2026-11-01T06:30:00.000Z', '2026-11-01T01:30:00-05:00'],
    // Southern hemisphere: Sydney's summer time ends at 03:00 AEDT on 5 April 2026 (16:00Z on the 4th).
    ['Australia/Sydney', '2026-04-04T15:59:59.000Z', '2026-04-05T02:59:59+11:00'],
    ['Australia/Sydney', '2026-04-04T16:00:00.000Z', '2026-04-05T02:00:00+10:00'],
    // Zones a quarter or half an hour off, a half-hour summer shift, and a day across the date line.
    ['Asia/Kathmandu', '2026-06-01T00:00:00.000Z', '2026-06-01T05:45:00+05:45'],
    ['Australia/Lord_Howe', '2026-01-15T12:00:00.000Z', '2026-01-15T23:00:00+11:00'],
    ['Australia/Lord_Howe', '2026-07-15T12:00:00.000Z', '2026-07-15T22:30:00+10:30'],
    ['Pacific/Kiritimati', '2026-12-31T11:00:00.000Z', '2027-01-01T01:00:00+14:00'],
    ['UTC', '2026-11-03T14:14:05.000Z', '2026-11-03T14:14:05+00:00'],
    // Local mean time before standard time, with seconds in its offset.
    ['America/Caracas', '1890-01-01T12:00:00.000Z', '1890-01-01T07:32:20-04:27:40'],
  ])('%s: %s is %s', (zone, utc, local) => {
    expect(createLocalTimes(zone).format(utc)).toBe(local);
  });

  it('keeps fractions of a second as written (dropped when all zero), and any offset the service used', () => {
    const times = createLocalTimes('Europe/Paris');
    expect(times.format('2026-07-01T10:00:00.123456Z')).toBe('2026-07-01T12:00:00.123456+02:00');
    expect(times.format('2026-07-01T10:00:00.000Z')).toBe('2026-07-01T12:00:00+02:00');
    expect(times.format('2026-07-01T12:00:00.5+02:00')).toBe('2026-07-01T12:00:00.5+02:00');
  });

  it('leaves text that is not a timestamp as it is', () => {
    const times = createLocalTimes('Europe/Paris');
    for (const text of ['', 'yesterday', '2026-07-01', '2026-02-30T10:00:00Z']) {
      expect(times.format(text)).toBe(text);
    }
  });

  it('defaults to UTC and names zones as the person gave them, or as the runtime spells them', () => {
    expect(createLocalTimes().zone).toBe('UTC');
    expect(zoneName('america/new_york')).toBe('America/New_York');
    expect(zoneName('Europe/Paris')).toBe('Europe/Paris');
  });

  it("is the zone's wall clock and offset at every instant, however the instants come", () => {
    const seed = Date.now() % 2 ** 31;
    console.log(`local-time property seed: ${seed}`);
    const zones = [
      'America/New_York',
      'Europe/London',
      'Australia/Lord_Howe',
      'America/Santiago',
      'Asia/Tehran',
      'Africa/Casablanca',
      'Pacific/Chatham',
    ];
    fc.assert(
      fc.property(
        fc.constantFrom(...zones),
        fc.array(fc.integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2035, 0, 1) }), {
          minLength: 1,
          maxLength: 40,
        }),
        (zone, instants) => {
          // One formatter per export: its offsets are kept between rows.
          const times = createLocalTimes(zone);
          for (const ms of instants) {
            const whole = Math.floor(ms / 1000) * 1000;
            const local = times.format(new Date(whole).toISOString());
            expect(local.slice(0, 19), `${zone} ${whole}`).toBe(wallClock(whole, zone));
            expect(instantOf(local), `${zone} ${whole} ${local}`).toBe(whole);
          }
        },
      ),
      { seed, numRuns: 300 },
    );
  });

  it.each(['America/New_York', 'Australia/Lord_Howe', 'Europe/Dublin', 'Africa/Casablanca'])(
    '%s: right every 3 hours of 2026 and on both sides of each change, to the second',
    (zone) => {
      const times = createLocalTimes(zone);
      /** The reference: the wall clock as Intl gives it, minus the instant. */
      const offset = (ms: number) => Date.parse(`${wallClock(ms, zone)}Z`) - ms;
      const wrong: string[] = [];
      const check = (ms: number) => {
        const local = times.format(new Date(ms).toISOString());
        if (local.slice(0, 19) !== wallClock(ms, zone) || instantOf(local) !== ms) {
          wrong.push(`${new Date(ms).toISOString()} → ${local}`);
        }
      };
      const step = 3 * 3_600_000;
      let changes = 0;
      for (let ms = Date.UTC(2026, 0, 1); ms < Date.UTC(2027, 0, 1); ms += step) {
        check(ms);
        if (offset(ms) === offset(ms + step)) continue;
        // The second the offset changes, then both sides of it.
        let lo = ms;
        let hi = ms + step;
        while (hi - lo > 1000) {
          const mid = lo + Math.floor((hi - lo) / 2000) * 1000;
          if (offset(mid) === offset(ms)) lo = mid;
          else hi = mid;
        }
        check(lo);
        check(hi);
        changes += 1;
      }
      expect(wrong).toEqual([]);
      expect(changes).toBeGreaterThanOrEqual(2);
    },
  );
});
