// One behaviour suite for every UsedCodeLedger: a TOTP code is good once, on any replica.
import { describe, expect, it } from 'vitest';
import type { UsedCodeLedger } from './totp';

export interface UsedCodeLedgerUnderTest {
  /** Two replicas' views of one ledger (the same object for an in-process one). */
  a: UsedCodeLedger;
  b: UsedCodeLedger;
}

let counter = 0;
const freshEmail = () => `p${++counter}-${Math.random().toString(36).slice(2)}@example.test`;
const STEP = 56_666_666;

export function usedCodeLedgerContract(name: string, make: () => Promise<UsedCodeLedgerUnderTest>) {
  describe(`${name} (UsedCodeLedger contract)`, () => {
    it('a step is claimed once: again, or on the other replica, it is refused', async () => {
      const { a, b } = await make();
      const email = freshEmail();
      expect(await a.claim(email, STEP)).toBe(true);
      expect(await a.claim(email, STEP)).toBe(false);
      expect(await b.claim(email, STEP)).toBe(false);
    });

    it('only moves forward: an earlier step is refused, a later one accepted', async () => {
      const { a, b } = await make();
      const email = freshEmail();
      expect(await a.claim(email, STEP)).toBe(true);
      expect(await b.claim(email, STEP - 1)).toBe(false);
      expect(await b.claim(email, STEP + 1)).toBe(true);
      expect(await a.claim(email, STEP)).toBe(false);
      expect(await a.claim(email, STEP + 1)).toBe(false);
    });

    it("one person's claim does not use up another's step", async () => {
      const { a, b } = await make();
      const [ada, bob] = [freshEmail(), freshEmail()];
      expect(await a.claim(ada, STEP)).toBe(true);
      expect(await b.claim(bob, STEP)).toBe(true);
    });

    it('the same step claimed 60 times at once across both replicas: exactly one wins', async () => {
      const { a, b } = await make();
      const email = freshEmail();
      const results = await Promise.all(
        Array.from({ length: 60 }, (_, i) => (i % 2 ? a : b).claim(email, STEP)),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
    });

    it('steps around the current one claimed at once: the highest is what remains', async () => {
      const { a, b } = await make();
      const email = freshEmail();
      await Promise.all([STEP - 1, STEP + 1, STEP].map((s, i) => (i % 2 ? a : b).claim(email, s)));
      expect(await a.claim(email, STEP + 1)).toBe(false);
      expect(await b.claim(email, STEP + 2)).toBe(true);
    });
  });
}
