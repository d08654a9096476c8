// The living demo's transactions: decided by the seed and the minute alone, at the rates and
// shares it says, and added to the simulator's lists as their minutes come.
import { describe, expect, it } from 'vitest';
import { createCardService } from '../service';
import {
  DECLINE_WINDOW,
  inWorkingHours,
  minuteOfActivity,
  purchasesOf,
  startLiveActivity,
} from './live-activity';

const ZONE = 'America/New_York';
const HOURS = { from: 8, to: 19 };
const options = { seed: 7, perMinute: 3, hours: HOURS, timeZone: ZONE };
/** Wednesday 2 December 2026, 10:00 in New York. */
const WORKING = Date.parse('2026-12-02T15:00:00Z');
const MINUTE = 60_000;

const sim = createCardService({ apiKey: 'live-activity-key', seed: 7, transactions: 2_000 });
const purchases = purchasesOf(sim);

describe('live activity', () => {
  it('knows working hours: weekdays from 8 until 19 in the zone, not at night or at weekends', () => {
    expect(inWorkingHours(WORKING, HOURS, ZONE)).toBe(true);
    expect(inWorkingHours(Date.parse('2026-12-02T23:59:00Z'), HOURS, ZONE)).toBe(true); // 18:59
    expect(inWorkingHours(Date.parse('2026-12-03T00:00:00Z'), HOURS, ZONE)).toBe(false); // 19:00
    expect(inWorkingHours(Date.parse('2026-12-02T12:59:00Z'), HOURS, ZONE)).toBe(false); // 7:59
    expect(inWorkingHours(Date.parse('2026-12-05T15:00:00Z'), HOURS, ZONE)).toBe(false); // Sat
  });

  it('brings the same transactions for the same seed and minute, other ones for another seed', () => {
    const minute = Math.floor(WORKING / MINUTE);
    const runs = [0, 1].map(() =>
      Array.from({ length: 30 }, (_, i) => minuteOfActivity(minute + i, purchases, options)),
    );
    expect(runs[0]).toEqual(runs[1]);
    expect(runs[0]?.flat().length).toBeGreaterThan(30);
    const other = Array.from({ length: 30 }, (_, i) =>
      minuteOfActivity(minute + i, purchases, { ...options, seed: 8 }),
    );
    expect(other).not.toEqual(runs[0]);
  });

  it('arrives a few a minute in working hours, a tenth of that outside, declines and refunds among them', () => {
    // Two weeks, minute by minute.
    const first = Math.floor(Date.parse('2026-11-30T05:00:00Z') / MINUTE);
    const at = { working: { minutes: 0, count: 0 }, outside: { minutes: 0, count: 0 } };
    const statuses = new Map<string, number>();
    let lastDecline = first * MINUTE;
    let longestGap = 0;
    for (let minute = first; minute < first + 14 * 24 * 60; minute++) {
      const due = minuteOfActivity(minute, purchases, options);
      const side = inWorkingHours(minute * MINUTE, HOURS, ZONE) ? at.working : at.outside;
      side.minutes += 1;
      expect(due.map((d) => d.at)).toEqual(due.map((d) => d.at).sort((a, b) => a - b));
      for (const { at: when, transaction } of due) {
        expect(Math.floor(when / MINUTE)).toBe(minute);
        expect(purchases.some((p) => p.cardId === transaction.cardId)).toBe(true);
        statuses.set(transaction.status, (statuses.get(transaction.status) ?? 0) + 1);
        // A charge (or a decline of one) is below 0, a refund above: as the service lists them.
        expect(transaction.amountCents > 0).toBe(transaction.status === 'refund');
        if (transaction.status === 'declined') {
          longestGap = Math.max(longestGap, when - lastDecline);
          lastDecline = when;
        } else {
          side.count += 1;
        }
      }
    }
    // What goes through: 85 % of the draw (15 % of it declined).
    expect(at.working.count / at.working.minutes).toBeCloseTo(3 * 0.85, 0);
    expect(at.outside.count / at.outside.minutes).toBeCloseTo(0.3 * 0.85, 1);
    const through = (statuses.get('settled') ?? 0) + (statuses.get('refund') ?? 0);
    expect((statuses.get('refund') ?? 0) / through).toBeGreaterThan(0.09);
    expect((statuses.get('refund') ?? 0) / through).toBeLessThan(0.15);
    expect([...statuses.keys()].sort()).toEqual(['declined', 'refund', 'settled']);
    // A decline at least every minute and a half, at any hour, weekends too.
    expect(longestGap).toBeLessThanOrEqual(MINUTE + DECLINE_WINDOW.to);
    expect(longestGap).toBeGreaterThan(MINUTE);
    const minutes = at.working.minutes + at.outside.minutes;
    expect((statuses.get('declined') ?? 0) / minutes).toBeGreaterThanOrEqual(1);
    expect((statuses.get('declined') ?? 0) / minutes).toBeLessThan(1.5);
  });

  it('adds each minute’s transactions to the lists as the clock reaches them, none before it started', async () => {
    const live = createCardService({ apiKey: 'live-activity-key', seed: 7, transactions: 2_000 });
    const all = () => live.data.subAccounts().flatMap((s) => live.data.transactions(s.id));
    const known = new Set(all().map((t) => t.id));
    const basis = purchasesOf(live);
    let now = WORKING + 30_000;
    const started = now;
    const activity = startLiveActivity(live, { ...options, now: () => now, everyMs: 5 });
    try {
      now += 10 * MINUTE;
      const first = Math.floor(started / MINUTE);
      const expected = Array.from({ length: 11 }, (_, i) =>
        minuteOfActivity(first + i, basis, options),
      )
        .flat()
        .filter((d) => d.at > started && d.at <= now);
      expect(expected.length).toBeGreaterThan(10);
      await expect.poll(() => all().length, { timeout: 5_000 }).toBe(known.size + expected.length);
      // Each one listed as it arrived: its card, status and amount.
      const said = (t: { cardId?: string; status: string; amountCents: number }) =>
        `${t.cardId} ${t.status} ${t.amountCents}`;
      expect(
        all()
          .filter((t) => !known.has(t.id))
          .map(said)
          .sort(),
      ).toEqual(expected.map((d) => said(d.transaction)).sort());
    } finally {
      activity.stop();
    }
  });
});
