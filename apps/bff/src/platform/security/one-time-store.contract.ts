// One behaviour suite for every OneTimeStore: a value is handed out once, on any replica.
import { describe, expect, it } from 'vitest';
import type { OneTimeStore } from './one-time-store';

export interface OneTimeStoreUnderTest {
  /** Two replicas' views of one store (the same object for an in-process store). */
  a: OneTimeStore;
  b: OneTimeStore;
  /** Lets `ms` pass for the store's expiry. */
  pass(ms: number): Promise<void>;
}

let counter = 0;
const freshKey = () => `key-${++counter}-${Math.random().toString(36).slice(2)}`;

export function oneTimeStoreContract(
  name: string,
  make: (options?: { limit?: number }) => Promise<OneTimeStoreUnderTest>,
) {
  describe(`${name} (OneTimeStore contract)`, () => {
    it('a value put on one replica is taken on the other, and then it is gone', async () => {
      const { a, b } = await make();
      const key = freshKey();
      await a.put(key, 'challenge-1', 60_000);
      expect(await b.take(key)).toBe('challenge-1');
      expect(await b.take(key)).toBeUndefined();
      expect(await a.take(key)).toBeUndefined();
    });

    it('has nothing under a key never put; other keys are not touched by a take', async () => {
      const { a, b } = await make();
      const [kept, never] = [freshKey(), freshKey()];
      await a.put(kept, 'kept', 60_000);
      expect(await b.take(never)).toBeUndefined();
      expect(await b.take(kept)).toBe('kept');
    });

    it('a later put replaces the value, and the replaced one is never handed out', async () => {
      const { a, b } = await make();
      const key = freshKey();
      await a.put(key, 'first', 60_000);
      await b.put(key, 'second', 60_000);
      expect(await a.take(key)).toBe('second');
      expect(await b.take(key)).toBeUndefined();
    });

    it('20 takes of one key at once across both replicas: exactly one gets the value', async () => {
      const { a, b } = await make();
      const key = freshKey();
      await a.put(key, 'state+nonce+verifier', 60_000);
      const taken = await Promise.all(
        Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).take(key)),
      );
      expect(taken.filter((value) => value !== undefined)).toEqual(['state+nonce+verifier']);
    });

    it('a value past its time is gone; one still within it is there', async () => {
      const { a, b, pass } = await make();
      const [short, long] = [freshKey(), freshKey()];
      await a.put(short, 'short', 100);
      await a.put(long, 'long', 60_000);
      await pass(300);
      expect(await b.take(short)).toBeUndefined();
      expect(await b.take(long)).toBe('long');
    });

    it('a put after expiry starts afresh', async () => {
      const { a, b, pass } = await make();
      const key = freshKey();
      await a.put(key, 'old', 100);
      await pass(300);
      await b.put(key, 'new', 60_000);
      expect(await a.take(key)).toBe('new');
    });

    it('never holds more than its bound: the oldest live value makes room, on either replica', async () => {
      const { a, b } = await make({ limit: 3 });
      const keys = [freshKey(), freshKey(), freshKey(), freshKey()];
      // `second` expires soonest by a whole second: puts a millisecond apart may share a time on
      // the embedded engine's clock, and a tie is broken by the key's hash.
      await a.put(keys[0] as string, 'first', 60_000);
      await b.put(keys[1] as string, 'second', 59_000);
      await a.put(keys[2] as string, 'third', 60_000);
      await a.put(keys[0] as string, 'first again', 61_000); // replaced: now the newest
      await b.put(keys[3] as string, 'fourth', 62_000);
      expect(await a.take(keys[1] as string)).toBeUndefined();
      expect(await b.take(keys[2] as string)).toBe('third');
      expect(await b.take(keys[0] as string)).toBe('first again');
      expect(await a.take(keys[3] as string)).toBe('fourth');
    });

    it('a value taken frees its place: at the bound, a put after a take evicts nobody', async () => {
      const { a, b } = await make({ limit: 2 });
      const [one, two, three] = [freshKey(), freshKey(), freshKey()];
      await a.put(one, 'one', 60_000);
      await a.put(two, 'two', 60_000);
      expect(await b.take(one)).toBe('one');
      await b.put(three, 'three', 60_000);
      expect(await a.take(two)).toBe('two');
      expect(await a.take(three)).toBe('three');
    });
  });
}
