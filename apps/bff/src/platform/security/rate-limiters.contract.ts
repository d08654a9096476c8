// One behaviour suite for every RateLimiterFactory: the counters the sign-in and step-up
// reservations rely on, seen from two replicas.
import { RateLimiterRes } from 'rate-limiter-flexible';
import { describe, expect, it } from 'vitest';
import { type Counter, giveBack, type HeldPoint, reserve } from './attempt-reservation';
import type { RateLimiterFactory } from './rate-limits';

export interface RateLimitersUnderTest {
  /** Two replicas' factories over one store (the same one for an in-process store). */
  a: RateLimiterFactory;
  b: RateLimiterFactory;
}

let counter = 0;
const freshName = () => `limit-${++counter}-${Math.random().toString(36).slice(2)}`;

export function rateLimitersContract(name: string, make: () => Promise<RateLimitersUnderTest>) {
  describe(`${name} (rate limiter contract)`, () => {
    it('150 reservations at once, split across two replicas, at a counter of 5: exactly 5 get through and the refused ones count nowhere', async () => {
      const { a, b } = await make();
      const options = { keyPrefix: freshName(), points: 5, duration: 900 };
      const onA: Counter = { limiter: a(options), key: 'ada@example.test' };
      const onB: Counter = { limiter: b(options), key: 'ada@example.test' };

      const results = await Promise.all(
        Array.from({ length: 150 }, (_, i) => reserve([i % 2 ? onA : onB])),
      );

      const through = results.filter((r) => r.ok);
      expect(through).toHaveLength(5);
      for (const r of results) {
        if (r.ok) continue;
        expect(r.msBeforeNext).toBeGreaterThan(0);
        expect(r.msBeforeNext).toBeLessThanOrEqual(900_000);
      }
      expect((await onA.limiter.get(onA.key))?.consumedPoints).toBe(5);
      expect((await onB.limiter.get(onB.key))?.consumedPoints).toBe(5);
    });

    it('a point given back on one replica lets the next attempt through on the other', async () => {
      const { a, b } = await make();
      const options = { keyPrefix: freshName(), points: 2, duration: 900 };
      const onA: Counter = { limiter: a(options), key: '203.0.113.7' };
      const onB: Counter = { limiter: b(options), key: '203.0.113.7' };
      const first = await reserve([onA]);
      await reserve([onA]);
      expect((await reserve([onB])).ok).toBe(false);
      if (!first.ok) throw new Error('expected the first attempt through');
      await giveBack(first.held[0] as HeldPoint);
      expect((await reserve([onB])).ok).toBe(true);
      expect((await reserve([onA])).ok).toBe(false);
    });

    it('an attempt refused by its second counter takes nothing from the first', async () => {
      const { a, b } = await make();
      const loose: Counter = {
        limiter: a({ keyPrefix: freshName(), points: 10, duration: 900 }),
        key: 'x',
      };
      const tightOptions = { keyPrefix: freshName(), points: 1, duration: 900 };
      expect((await reserve([{ limiter: b(tightOptions), key: 'x' }])).ok).toBe(true);
      const refused = await reserve([loose, { limiter: a(tightOptions), key: 'x' }]);
      expect(refused.ok).toBe(false);
      expect((await loose.limiter.get('x'))?.consumedPoints ?? 0).toBe(0);
    });

    it('penalties add up across replicas and a delete on one clears the count for both', async () => {
      const { a, b } = await make();
      const options = { keyPrefix: freshName(), points: 5, duration: 3600 };
      const onA = a(options);
      const onB = b(options);
      await Promise.all([onA.penalty('session'), onB.penalty('session'), onA.penalty('session')]);
      expect((await onB.penalty('session')).consumedPoints).toBe(4);
      expect(await onA.delete('session')).toBe(true);
      expect(await onB.get('session')).toBeNull();
      expect((await onB.consume('session')).consumedPoints).toBe(1);
    });

    it('limiters of different names keep separate counts for the same key', async () => {
      const { a, b } = await make();
      const one = a({ keyPrefix: freshName(), points: 1, duration: 60 });
      const other = b({ keyPrefix: freshName(), points: 1, duration: 60 });
      await one.consume('ada@example.test');
      await expect(one.consume('ada@example.test')).rejects.toBeInstanceOf(RateLimiterRes);
      expect((await other.consume('ada@example.test')).consumedPoints).toBe(1);
    });
  });
}
