// One behaviour suite for every FactorStore: a person is never left with TOTP off and no
// passkey, a credential is enrolled once, and these hold when requests (and replicas) race.
import { describe, expect, it } from 'vitest';
import { type FactorStore, MAX_PASSKEYS_PER_PERSON, type StoredPasskey } from './factor-store';

export interface FactorStoreUnderTest {
  /** Two replicas' views of one store (the same object for a single-replica store). */
  a: FactorStore;
  b: FactorStore;
}

let counter = 0;
const fresh = () => `${++counter}-${Math.random().toString(36).slice(2)}`;
const freshEmail = () => `p${fresh()}@example.test`;
const freshId = () => `cred_${fresh()}`.replace(/[^A-Za-z0-9_-]/g, '-');
const T0 = 1_760_000_000_000;

const passkey = (over: Partial<StoredPasskey> = {}): StoredPasskey => ({
  id: freshId(),
  publicKey: 'pQECAyYgASFYIMp-xGa_7vM1bXkM2PbTq0aUb5eR2E6a3WfP7c6dVg0sIlggWkZ',
  counter: 0,
  transports: ['internal', 'hybrid'],
  name: 'Laptop',
  createdAt: T0,
  ...over,
});

/** A sealed TOTP secret's shape (totp-secret-box.ts); the store never opens it. */
const sealed = () =>
  `v1:AbCdEf12:${fresh().replace(/[^A-Za-z0-9_-]/g, '-')}-iv0000:body_${fresh().replace(/[^A-Za-z0-9_-]/g, '-')}:tag`;

/** Each race is run this many times, each time for a fresh person, so interleavings get a chance. */
const ROUNDS = 15;

export function factorStoreContract(name: string, make: () => Promise<FactorStoreUnderTest>) {
  describe(`${name} (FactorStore contract)`, () => {
    it('an unknown person has no passkeys and TOTP on', async () => {
      const { a } = await make();
      expect(await a.get(freshEmail())).toEqual({ passkeys: [], totpDisabled: false });
    });

    it('reads back enrolled passkeys exactly, oldest first, on the other replica', async () => {
      const { a, b } = await make();
      const email = freshEmail();
      const newer = passkey({ createdAt: T0 + 5_000, counter: 4_294_967_295, name: 'Clé ✓ "x"' });
      const older = passkey({ transports: undefined, lastUsedAt: T0 + 9_999 });
      expect(await a.addPasskey(email, newer)).toBe('added');
      expect(await b.addPasskey(email, older)).toBe('added');
      const { transports: _none, ...olderWithout } = older;
      expect(await b.get(email)).toEqual({ passkeys: [olderWithout, newer], totpDisabled: false });
    });

    it('a change to what was read, or to what was added, is not stored', async () => {
      const { a, b } = await make();
      const email = freshEmail();
      const added = passkey();
      await a.addPasskey(email, added);
      added.name = 'changed after adding';
      const read = await b.get(email);
      const [first] = read.passkeys;
      if (!first) throw new Error('expected the passkey');
      first.counter = 99;
      read.passkeys.pop();
      read.totpDisabled = true;
      expect(await a.get(email)).toEqual({
        passkeys: [{ ...added, name: 'Laptop' }],
        totpDisabled: false,
      });
    });

    it('a credential id enrolled by anyone is refused as a duplicate, for them and for others', async () => {
      const { a, b } = await make();
      const [ada, bob] = [freshEmail(), freshEmail()];
      const key = passkey();
      expect(await a.addPasskey(ada, key)).toBe('added');
      expect(await b.addPasskey(ada, { ...key, name: 'again' })).toBe('duplicate');
      expect(await b.addPasskey(bob, key)).toBe('duplicate');
      expect((await a.get(bob)).passkeys).toEqual([]);
      expect((await a.get(ada)).passkeys.map((p) => p.name)).toEqual(['Laptop']);
    });

    it('once removed, a credential id may be enrolled again', async () => {
      const { a, b } = await make();
      const [ada, bob] = [freshEmail(), freshEmail()];
      const key = passkey();
      await a.addPasskey(ada, key);
      expect(await b.removePasskey(ada, key.id)).toBe('removed');
      expect(await a.addPasskey(bob, key)).toBe('added');
    });

    it('the same credential added at once, by two people on two replicas: one added, one duplicate', async () => {
      const { a, b } = await make();
      for (let round = 0; round < ROUNDS; round++) {
        const [ada, bob] = [freshEmail(), freshEmail()];
        const key = passkey();
        const outcomes = await Promise.all([a.addPasskey(ada, key), b.addPasskey(bob, key)]);
        expect(outcomes.sort()).toEqual(['added', 'duplicate']);
        const holders = [await a.get(ada), await b.get(bob)].filter((f) => f.passkeys.length);
        expect(holders).toHaveLength(1);
      }
    });

    it(`allows ${MAX_PASSKEYS_PER_PERSON} passkeys a person, then refuses more as too_many`, async () => {
      const { a, b } = await make();
      const email = freshEmail();
      for (let i = 0; i < MAX_PASSKEYS_PER_PERSON; i++) {
        expect(await (i % 2 ? a : b).addPasskey(email, passkey())).toBe('added');
      }
      expect(await a.addPasskey(email, passkey())).toBe('too_many');
      expect(await a.addPasskey(freshEmail(), passkey())).toBe('added');
      expect((await b.get(email)).passkeys).toHaveLength(MAX_PASSKEYS_PER_PERSON);
    });

    it(`${MAX_PASSKEYS_PER_PERSON + 6} adds at once across both replicas: exactly ${MAX_PASSKEYS_PER_PERSON} are kept`, async () => {
      const { a, b } = await make();
      const email = freshEmail();
      const outcomes = await Promise.all(
        Array.from({ length: MAX_PASSKEYS_PER_PERSON + 6 }, (_, i) =>
          (i % 2 ? a : b).addPasskey(email, passkey()),
        ),
      );
      expect(outcomes.filter((o) => o === 'added')).toHaveLength(MAX_PASSKEYS_PER_PERSON);
      expect(outcomes.filter((o) => o === 'too_many')).toHaveLength(6);
      expect((await a.get(email)).passkeys).toHaveLength(MAX_PASSKEYS_PER_PERSON);
    });

    it('records a rename only when the name changes; a record refused leaves the name', async () => {
      const { a, b } = await make();
      const ada = freshEmail();
      const key = passkey();
      await a.addPasskey(ada, key);
      const heard: string[] = [];
      const hook = async (was: string) => void heard.push(was);
      expect(await b.renamePasskey(ada, key.id, 'Phone', hook)).toEqual({ ...key, name: 'Phone' });
      // The hook hears the name it had.
      expect(heard).toEqual([key.name]);
      // The name it has, or a passkey the person does not have: nothing written, nothing recorded.
      expect(await a.renamePasskey(ada, key.id, 'Phone', hook)).toEqual({ ...key, name: 'Phone' });
      expect(await a.renamePasskey(ada, freshId(), 'Ghost', hook)).toBeUndefined();
      expect(heard).toEqual([key.name]);
      const refused = async () => {
        throw new Error('the trail is down');
      };
      await expect(a.renamePasskey(ada, key.id, 'Tablet', refused)).rejects.toThrow(
        'the trail is down',
      );
      expect((await b.get(ada)).passkeys[0]?.name).toBe('Phone');
    });

    it('renames at once through both: each hears the name it replaced, one chain of names', async () => {
      const { a, b } = await make();
      const ada = freshEmail();
      const key = passkey();
      await a.addPasskey(ada, key);
      const names = ['Phone', 'Tablet', 'Watch', 'Desk key', 'Travel key', 'Spare key'];
      const heard = new Map<string, string>();
      await Promise.all(
        names.map((name, i) =>
          (i % 2 ? b : a).renamePasskey(ada, key.id, name, async (was) => {
            // A pause inside the write, where a read outside it would let another rename in.
            await new Promise((resolve) => setTimeout(resolve, 5));
            heard.set(name, was);
          }),
        ),
      );
      // Every rename replaced a different name: following "was" from the name it ends with
      // walks back through all six to the first name, each once.
      const last = (await a.get(ada)).passkeys[0]?.name ?? '';
      const chain = [last];
      for (let name = last; heard.has(name) && chain.length <= names.length; ) {
        name = heard.get(name) ?? '';
        chain.push(name);
      }
      expect(chain).toHaveLength(names.length + 1);
      expect(chain.at(-1)).toBe(key.name);
      expect(new Set(chain.slice(0, -1))).toEqual(new Set(names));
    });

    it('renames only the named passkey of that person; the rest of it is kept', async () => {
      const { a, b } = await make();
      const [ada, bob] = [freshEmail(), freshEmail()];
      const [mine, other] = [passkey({ counter: 7, lastUsedAt: T0 + 1 }), passkey()];
      await a.addPasskey(ada, mine);
      await a.addPasskey(ada, other);
      expect(await b.renamePasskey(ada, mine.id, 'Phone')).toEqual({ ...mine, name: 'Phone' });
      expect((await a.get(ada)).passkeys).toEqual([{ ...mine, name: 'Phone' }, other]);
      expect(await a.renamePasskey(bob, mine.id, 'Stolen')).toBeUndefined();
      expect(await a.renamePasskey(ada, freshId(), 'Ghost')).toBeUndefined();
      expect((await b.get(ada)).passkeys[0]?.name).toBe('Phone');
      expect(await b.get(bob)).toEqual({ passkeys: [], totpDisabled: false });
    });

    it("removing another person's passkey, or one never enrolled, is not_found and changes nothing", async () => {
      const { a, b } = await make();
      const [ada, bob] = [freshEmail(), freshEmail()];
      const key = passkey();
      await a.addPasskey(ada, key);
      expect(await b.removePasskey(bob, key.id)).toBe('not_found');
      expect(await b.removePasskey(ada, freshId())).toBe('not_found');
      expect((await a.get(ada)).passkeys).toEqual([key]);
      expect(await a.removePasskey(ada, key.id)).toBe('removed');
      expect(await b.removePasskey(ada, key.id)).toBe('not_found');
      expect(await a.get(ada)).toEqual({ passkeys: [], totpDisabled: false });
    });

    it('TOTP goes off only with a passkey, and comes back on at any time', async () => {
      const { a, b } = await make();
      const email = freshEmail();
      expect(await a.setTotpDisabled(email, true)).toBe('no_passkey');
      expect((await b.get(email)).totpDisabled).toBe(false);
      await a.addPasskey(email, passkey());
      expect(await b.setTotpDisabled(email, true)).toBe('ok');
      expect((await a.get(email)).totpDisabled).toBe(true);
      expect(await a.setTotpDisabled(email, true)).toBe('unchanged');
      expect(await a.setTotpDisabled(email, false)).toBe('ok');
      expect((await b.get(email)).totpDisabled).toBe(false);
      expect(await b.setTotpDisabled(freshEmail(), false)).toBe('unchanged');
    });

    it('of the same switch sent to both replicas at once, one is the change (its record), the other finds it made', async () => {
      const { a, b } = await make();
      for (let round = 0; round < ROUNDS; round++) {
        const email = freshEmail();
        await a.addPasskey(email, passkey());
        for (const disabled of [true, false]) {
          const recorded: string[] = [];
          const note = async (outcome: string) => {
            recorded.push(outcome);
          };
          const outcomes = await Promise.all([
            a.setTotpDisabled(email, disabled, note),
            b.setTotpDisabled(email, disabled, note),
          ]);
          expect(outcomes.sort()).toEqual(['ok', 'unchanged']);
          expect(recorded).toEqual(['ok']);
          expect((await b.get(email)).totpDisabled).toBe(disabled);
        }
      }
    });

    it('with TOTP off the last passkey stays (last_factor); with TOTP on it may go', async () => {
      const { a, b } = await make();
      const email = freshEmail();
      const [first, second] = [passkey(), passkey({ createdAt: T0 + 1 })];
      await a.addPasskey(email, first);
      await a.addPasskey(email, second);
      await a.setTotpDisabled(email, true);
      expect(await b.removePasskey(email, first.id)).toBe('removed');
      expect(await b.removePasskey(email, second.id)).toBe('last_factor');
      expect(await a.get(email)).toEqual({ passkeys: [second], totpDisabled: true });
      await b.setTotpDisabled(email, false);
      expect(await a.removePasskey(email, second.id)).toBe('removed');
      expect(await b.get(email)).toEqual({ passkeys: [], totpDisabled: false });
    });

    it('TOTP off and two passkeys removed at once on both replicas: exactly one goes', async () => {
      const { a, b } = await make();
      for (let round = 0; round < ROUNDS; round++) {
        const email = freshEmail();
        const [first, second] = [passkey(), passkey()];
        await a.addPasskey(email, first);
        await a.addPasskey(email, second);
        await a.setTotpDisabled(email, true);
        const outcomes = await Promise.all([
          a.removePasskey(email, first.id),
          b.removePasskey(email, second.id),
        ]);
        expect(outcomes.sort()).toEqual(['last_factor', 'removed']);
        const after = await b.get(email);
        expect(after.totpDisabled).toBe(true);
        expect(after.passkeys).toHaveLength(1);
      }
    });

    it('TOTP turned off while the only passkey is removed, at once: never TOTP off and no passkey', async () => {
      const { a, b } = await make();
      for (let round = 0; round < ROUNDS; round++) {
        const email = freshEmail();
        const only = passkey();
        await a.addPasskey(email, only);
        const [switched, removed] = await Promise.all(
          round % 2
            ? [a.setTotpDisabled(email, true), b.removePasskey(email, only.id)]
            : [b.setTotpDisabled(email, true), a.removePasskey(email, only.id)],
        );
        const after = await a.get(email);
        expect(after.totpDisabled && after.passkeys.length === 0).toBe(false);
        // Whichever ran first, the other saw its result.
        expect([
          ['ok', 'last_factor'],
          ['no_passkey', 'removed'],
        ]).toContainEqual([switched, removed]);
        expect(after).toEqual(
          switched === 'ok'
            ? { passkeys: [only], totpDisabled: true }
            : { passkeys: [], totpDisabled: false },
        );
      }
    });

    it('a use stores the higher counter and the time; a lower counter never goes back', async () => {
      const { a, b } = await make();
      const email = freshEmail();
      const key = passkey({ counter: 5 });
      await a.addPasskey(email, key);
      expect(await b.recordUse(email, key.id, 9, T0 + 1_000)).toBe(true);
      expect((await a.get(email)).passkeys[0]).toMatchObject({
        counter: 9,
        lastUsedAt: T0 + 1_000,
      });
      expect(await a.recordUse(email, key.id, 3, T0 + 2_000)).toBe(true);
      expect((await b.get(email)).passkeys[0]).toMatchObject({
        counter: 9,
        lastUsedAt: T0 + 2_000,
      });
      expect(await a.recordUse(email, key.id, 4_294_967_295, T0 + 3_000)).toBe(true);
      expect((await b.get(email)).passkeys[0]).toEqual({
        ...key,
        counter: 4_294_967_295,
        lastUsedAt: T0 + 3_000,
      });
    });

    it('uses recorded at once in any order: the highest counter and latest time remain', async () => {
      const { a, b } = await make();
      const email = freshEmail();
      const key = passkey();
      await a.addPasskey(email, key);
      const counters = Array.from({ length: 20 }, (_, i) => i + 1).sort(() => Math.random() - 0.5);
      const recorded = await Promise.all(
        counters.map((c, i) => (i % 2 ? a : b).recordUse(email, key.id, c, T0 + c)),
      );
      expect(recorded.every(Boolean)).toBe(true);
      expect((await a.get(email)).passkeys[0]).toMatchObject({ counter: 20, lastUsedAt: T0 + 20 });
    });

    it("a use of a removed passkey, or of another person's, is false and stores nothing", async () => {
      const { a, b } = await make();
      const [ada, bob] = [freshEmail(), freshEmail()];
      const [kept, gone] = [passkey(), passkey()];
      await a.addPasskey(ada, kept);
      await a.addPasskey(ada, gone);
      await a.removePasskey(ada, gone.id);
      expect(await b.recordUse(ada, gone.id, 1, T0)).toBe(false);
      expect(await b.recordUse(bob, kept.id, 1, T0)).toBe(false);
      expect(await a.get(ada)).toEqual({ passkeys: [kept], totpDisabled: false });
      expect(await a.get(bob)).toEqual({ passkeys: [], totpDisabled: false });
    });

    it('a rename and a use at once both stick', async () => {
      const { a, b } = await make();
      const email = freshEmail();
      const key = passkey();
      await a.addPasskey(email, key);
      await Promise.all([
        a.renamePasskey(email, key.id, 'Work key'),
        b.recordUse(email, key.id, 12, T0 + 50),
      ]);
      expect((await a.get(email)).passkeys[0]).toMatchObject({
        name: 'Work key',
        counter: 12,
        lastUsedAt: T0 + 50,
      });
    });

    it('refuses to store a passkey it could not read back, or a use that is not whole', async () => {
      const { a } = await make();
      const email = freshEmail();
      await expect(a.addPasskey(email, passkey({ id: 'not base64url!' }))).rejects.toThrow(
        TypeError,
      );
      await expect(a.addPasskey(email, passkey({ counter: -1 }))).rejects.toThrow(TypeError);
      const key = passkey();
      await a.addPasskey(email, key);
      await expect(a.recordUse(email, key.id, 1.5, T0)).rejects.toThrow(RangeError);
      expect((await a.get(email)).passkeys).toEqual([key]);
    });

    it('a change whose audit hook throws is not written; a refusal never runs the hook', async () => {
      const { a, b } = await make();
      const email = freshEmail();
      const refused = async () => {
        throw new Error('the trail refused the record');
      };
      const seen: string[] = [];
      const noted = async (outcome: string) => {
        seen.push(outcome);
      };
      const key = passkey();
      await expect(a.addPasskey(email, key, refused)).rejects.toThrow('the trail refused');
      expect(await b.get(email)).toEqual({ passkeys: [], totpDisabled: false });

      expect(await a.addPasskey(email, key, noted)).toBe('added');
      expect(await a.addPasskey(email, key, noted)).toBe('duplicate');
      await expect(a.setTotpDisabled(email, true, refused)).rejects.toThrow('the trail refused');
      expect((await b.get(email)).totpDisabled).toBe(false);
      expect(await a.setTotpDisabled(email, true, noted)).toBe('ok');
      expect(await a.removePasskey(email, key.id, noted)).toBe('last_factor');
      await expect(a.setTotpDisabled(email, false, refused)).rejects.toThrow('the trail refused');
      expect((await b.get(email)).totpDisabled).toBe(true);
      expect(await a.setTotpDisabled(email, false, noted)).toBe('ok');
      await expect(a.removePasskey(email, key.id, refused)).rejects.toThrow('the trail refused');
      expect((await b.get(email)).passkeys).toEqual([key]);
      expect(await a.removePasskey(email, key.id, noted)).toBe('removed');
      expect(await a.removePasskey(email, key.id, noted)).toBe('not_found');
      expect(await b.get(email)).toEqual({ passkeys: [], totpDisabled: false });
      expect(seen).toEqual(['added', 'ok', 'ok', 'removed']);
    });

    it('keeps a sealed TOTP secret of the person’s own, replaces it, and turns TOTP on with it', async () => {
      const { a, b } = await make();
      const email = freshEmail();
      const first = sealed();
      expect(await a.setTotpSecret(email, first)).toBe('ok');
      // Kept with nothing else (no passkey, TOTP on): a person's only factor stays.
      expect(await b.get(email)).toEqual({ passkeys: [], totpDisabled: false, totpSecret: first });
      const key = passkey();
      expect(await b.addPasskey(email, key)).toBe('added');
      expect(await a.setTotpDisabled(email, true)).toBe('ok');
      const second = sealed();
      expect(await b.setTotpSecret(email, second)).toBe('ok');
      expect(await a.get(email)).toEqual({
        passkeys: [key],
        totpDisabled: false,
        totpSecret: second,
      });
      expect(await a.removePasskey(email, key.id)).toBe('removed');
      expect(await b.get(email)).toEqual({ passkeys: [], totpDisabled: false, totpSecret: second });
      expect((await a.get(freshEmail())).totpSecret).toBeUndefined();
    });

    it('refuses a TOTP secret that is not sealed; a refused audit hook stores none', async () => {
      const { a, b } = await make();
      const email = freshEmail();
      await expect(a.setTotpSecret(email, 'JBSWY3DPEHPK3PXP')).rejects.toThrow(TypeError);
      await expect(
        a.setTotpSecret(email, sealed(), async () => {
          throw new Error('the trail refused the record');
        }),
      ).rejects.toThrow('the trail refused');
      expect(await b.get(email)).toEqual({ passkeys: [], totpDisabled: false });
      const seen: string[] = [];
      const kept = sealed();
      expect(
        await a.setTotpSecret(email, kept, async (outcome) => {
          seen.push(outcome);
        }),
      ).toBe('ok');
      expect(seen).toEqual(['ok']);
      expect((await b.get(email)).totpSecret).toBe(kept);
    });

    it('seals a secret again only while it is the one stored, leaving TOTP off as it was', async () => {
      const { a, b } = await make();
      const email = freshEmail();
      const [old, resealed, newer] = [sealed(), sealed(), sealed()];
      expect(await a.resealTotpSecret(email, old, resealed)).toBe(false);
      expect(await b.get(email)).toEqual({ passkeys: [], totpDisabled: false });
      await a.setTotpSecret(email, old);
      const key = passkey();
      await a.addPasskey(email, key);
      await a.setTotpDisabled(email, true);
      expect(await b.resealTotpSecret(email, old, resealed)).toBe(true);
      expect(await a.get(email)).toEqual({
        passkeys: [key],
        totpDisabled: true,
        totpSecret: resealed,
      });
      // The old envelope is gone: sealing it again does nothing.
      expect(await a.resealTotpSecret(email, old, sealed())).toBe(false);
      await expect(a.resealTotpSecret(email, resealed, 'JBSWY3DPEHPK3PXP')).rejects.toThrow(
        TypeError,
      );
      expect((await b.get(email)).totpSecret).toBe(resealed);
      // A secret replaced meanwhile is never overwritten by the old one sealed again.
      await b.setTotpSecret(email, newer);
      expect(await a.resealTotpSecret(email, resealed, sealed())).toBe(false);
      expect((await b.get(email)).totpSecret).toBe(newer);
    });

    it("forgets every factor of one person (passkeys, own secret, TOTP off), no one else's", async () => {
      const { a, b } = await make();
      const [gone, kept] = [freshEmail(), freshEmail()];
      const [first, second, theirs] = [passkey(), passkey(), passkey()];
      await a.addPasskey(gone, first);
      await a.addPasskey(gone, second);
      await a.setTotpSecret(gone, sealed());
      expect(await a.setTotpDisabled(gone, true)).toBe('ok');
      await a.addPasskey(kept, theirs);
      expect(await b.forget(gone)).toBe(2);
      expect(await a.get(gone)).toEqual({ passkeys: [], totpDisabled: false });
      expect((await a.get(kept)).passkeys.map((p) => p.id)).toEqual([theirs.id]);
      expect(await a.forget(gone)).toBe(0);
      // Its credential ids are free again: the person they were enrolled by is gone.
      expect(await b.addPasskey(freshEmail(), first)).toBe('added');
    });

    it('a new secret and the old one sealed again, at once on both replicas: the new one is kept', async () => {
      const { a, b } = await make();
      for (let round = 0; round < ROUNDS; round++) {
        const email = freshEmail();
        const [old, newer] = [sealed(), sealed()];
        await a.setTotpSecret(email, old);
        await Promise.all([
          b.setTotpSecret(email, newer),
          a.resealTotpSecret(email, old, sealed()),
        ]);
        expect((await b.get(email)).totpSecret).toBe(newer);
      }
    });

    it('two secrets set at once on both replicas: one of them is kept, whole', async () => {
      const { a, b } = await make();
      for (let round = 0; round < ROUNDS; round++) {
        const email = freshEmail();
        const [x, y] = [sealed(), sealed()];
        await Promise.all([a.setTotpSecret(email, x), b.setTotpSecret(email, y)]);
        expect([x, y]).toContain((await a.get(email)).totpSecret);
      }
    });
  });
}
