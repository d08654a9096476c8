// One behaviour suite for every SessionStore implementation.
import { describe, expect, it } from 'vitest';
import type { SessionRecord, SessionStore } from './session-store';

export interface SessionStoreUnderTest {
  /** Two replicas' views of one store (the same object for an in-process store). */
  a: SessionStore;
  b: SessionStore;
  /** Lets `ms` pass for the store's expiry. */
  pass(ms: number): Promise<void>;
}

const record = (over: Partial<SessionRecord> = {}): SessionRecord => ({
  email: 'ada@example.test',
  role: 'admin',
  createdAt: 1_700_000_000_000,
  lastSeenAt: 1_700_000_060_000,
  ...over,
});

let counter = 0;
const freshKey = () => `key-${++counter}-${Math.random().toString(36).slice(2)}`;

export function sessionStoreContract(name: string, make: () => Promise<SessionStoreUnderTest>) {
  describe(`${name} (SessionStore contract)`, () => {
    it('reads back what was written, on either replica, with and without a step-up time', async () => {
      const { a, b } = await make();
      const plain = freshKey();
      const steppedUp = freshKey();
      await a.set(plain, record({ role: 'finance' }), 60_000);
      await a.set(steppedUp, record({ stepUpAt: 1_700_000_030_000 }), 60_000);
      expect(await b.get(plain)).toEqual(record({ role: 'finance' }));
      expect(await b.get(plain)).not.toHaveProperty('stepUpAt');
      expect(await b.get(steppedUp)).toEqual(record({ stepUpAt: 1_700_000_030_000 }));
    });

    it('keeps how a single sign-on session signed in (method, subject, ID token)', async () => {
      const { a, b } = await make();
      const key = freshKey();
      const sso = record({ method: 'sso', sso: { sub: 'provider-subject-1', idToken: 'a.b.c' } });
      await a.set(key, sso, 60_000);
      expect(await b.get(key)).toEqual(sso);
    });

    it("keeps the person's version and the session's ref (what ends it on every replica)", async () => {
      const { a, b } = await make();
      const key = freshKey();
      const held = record({ personVersion: 7, ref: 'session-ref-1' });
      await a.set(key, held, 60_000);
      expect(await b.get(key)).toEqual(held);
      await b.refresh(key, { ...held, lastSeenAt: 1_700_000_090_000 }, 60_000);
      expect(await a.get(key)).toMatchObject({ personVersion: 7, ref: 'session-ref-1' });
    });

    it('keeps which id a step-up replaced, and until when a replaced id still works', async () => {
      const { a, b } = await make();
      const live = freshKey();
      const retired = freshKey();
      const issued = record({ stepUpAt: 1_700_000_060_000, retiredKey: retired });
      const left = record({ retiredUntil: 1_700_000_070_000 });
      await a.set(live, issued, 60_000);
      await a.set(retired, left, 10_000);
      expect(await b.get(live)).toEqual(issued);
      expect(await b.get(retired)).toEqual(left);
    });

    it('has nothing under a key never written', async () => {
      const { a } = await make();
      expect(await a.get(freshKey())).toBeUndefined();
    });

    it('replaces the record under a key, and a change to a read record is not stored', async () => {
      const { a, b } = await make();
      const key = freshKey();
      await a.set(key, record(), 60_000);
      const read = await b.get(key);
      if (!read) throw new Error('expected a record');
      read.lastSeenAt += 1;
      expect(await a.get(key)).toEqual(record());
      await b.set(key, record({ lastSeenAt: 1_700_000_090_000 }), 60_000);
      expect((await a.get(key))?.lastSeenAt).toBe(1_700_000_090_000);
    });

    it('a deleted session is gone on every replica; other keys stay; deleting twice is fine', async () => {
      const { a, b } = await make();
      const gone = freshKey();
      const kept = freshKey();
      await a.set(gone, record(), 60_000);
      await a.set(kept, record({ email: 'bob@example.test' }), 60_000);
      await b.delete(gone);
      await b.delete(gone);
      expect(await a.get(gone)).toBeUndefined();
      expect(await b.get(gone)).toBeUndefined();
      expect((await a.get(kept))?.email).toBe('bob@example.test');
    });

    it('a refresh updates a live session but never brings back a deleted or lapsed one', async () => {
      const { a, b, pass } = await make();
      const live = freshKey();
      const signedOut = freshKey();
      const never = freshKey();
      await a.set(live, record(), 60_000);
      await a.set(signedOut, record(), 60_000);
      await b.delete(signedOut);
      await b.refresh(live, record({ lastSeenAt: 1_700_000_090_000 }), 60_000);
      await a.refresh(signedOut, record({ lastSeenAt: 1_700_000_090_000 }), 60_000);
      await a.refresh(never, record(), 60_000);
      expect((await a.get(live))?.lastSeenAt).toBe(1_700_000_090_000);
      expect(await b.get(signedOut)).toBeUndefined();
      expect(await b.get(never)).toBeUndefined();
      const lapsing = freshKey();
      await a.set(lapsing, record(), 30);
      await pass(80);
      await b.refresh(lapsing, record(), 60_000);
      expect(await a.get(lapsing)).toBeUndefined();
    });

    it('drops a record once its ttl has passed; rewriting with a new ttl keeps it', async () => {
      const { a, b, pass } = await make();
      const lapsing = freshKey();
      const renewed = freshKey();
      await a.set(lapsing, record(), 30);
      await a.set(renewed, record(), 30);
      await b.set(renewed, record(), 60_000);
      await pass(80);
      expect(await b.get(lapsing)).toBeUndefined();
      expect(await a.get(renewed)).toEqual(record());
    });

    it('keeps every record apart when many are written and read at once from both replicas', async () => {
      const { a, b } = await make();
      const keys = Array.from({ length: 100 }, freshKey);
      await Promise.all(
        keys.map((key, i) =>
          (i % 2 ? a : b).set(key, record({ email: `p${i}@example.test` }), 60_000),
        ),
      );
      const read = await Promise.all(keys.map((key, i) => (i % 2 ? b : a).get(key)));
      expect(read.map((r) => r?.email)).toEqual(keys.map((_, i) => `p${i}@example.test`));
    });
  });
}
