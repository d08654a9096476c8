// One contract for the security policy's store, run on every engine the BFF's data runs on (the
// embedded engine and PostgreSQL): off until set, what a change saves and answers, that setting
// it to what it is keeps when it started, that a change's record commits with it (and a record
// that cannot be written leaves the policy as it was), and that changes made at once are recorded
// one after the other.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { SqlEngine } from '../../platform/sql/sql-engine';
import { SqlSecurityPolicyStore } from './security-policy-store';

const at = (minute: number) => new Date(Date.UTC(2026, 10, 30, 21, minute));

export function securityPolicyStoreContract(
  name: string,
  open: () => Promise<{ engine: SqlEngine; close(): Promise<void> }>,
): void {
  describe(`the security policy store: ${name}`, () => {
    let engine: SqlEngine;
    let close: () => Promise<void>;
    let store: SqlSecurityPolicyStore;
    beforeAll(async () => {
      ({ engine, close } = await open());
      store = new SqlSecurityPolicyStore(engine);
    }, 60_000);
    afterAll(() => close?.());
    beforeEach(async () => {
      await engine.query('DELETE FROM security_policy');
    });

    it('is off until an admin sets it', async () => {
      expect(await store.get()).toEqual({ requireSecondFactor: false });
    });

    it('saves a change, answers it with the policy it replaced, and reads it back', async () => {
      const on = await store.update(true, 'ada@example.test', at(1));
      expect(on.before).toEqual({ requireSecondFactor: false });
      expect(on.after).toEqual({
        requireSecondFactor: true,
        updatedBy: 'ada@example.test',
        updatedAt: at(1).toISOString(),
      });
      expect(await store.get()).toEqual(on.after);
      const off = await store.update(false, 'bo@example.test', at(2));
      expect(off.before).toEqual(on.after);
      expect(await store.get()).toEqual({
        requireSecondFactor: false,
        updatedBy: 'bo@example.test',
        updatedAt: at(2).toISOString(),
      });
    });

    it('turning it on while it is on keeps when it started', async () => {
      await store.update(true, 'ada@example.test', at(1));
      const again = await store.update(true, 'bo@example.test', at(5));
      expect(again.after).toEqual(again.before);
      expect(await store.get()).toMatchObject({ updatedAt: at(1).toISOString() });
    });

    it("writes the change's record in its transaction: a record that fails leaves the policy as it was", async () => {
      const seen: unknown[] = [];
      await store.update(true, 'ada@example.test', at(1), async (result, tx) => {
        // The change is visible inside its own transaction, where the record is written.
        seen.push((await tx.query('SELECT require_second_factor FROM security_policy'))[0]);
        seen.push(result.after.requireSecondFactor);
      });
      expect(seen).toEqual([{ require_second_factor: true }, true]);
      const refused = await store
        .update(false, 'bo@example.test', at(2), async () => {
          throw new Error('the trail is down');
        })
        .then(
          () => undefined,
          (error: unknown) => error,
        );
      expect(refused).toBeInstanceOf(Error);
      expect(await store.get()).toMatchObject({
        requireSecondFactor: true,
        updatedAt: at(1).toISOString(),
      });
    });

    it('records changes made at once one after the other: each replaced what the other saved', async () => {
      const [a, b] = await Promise.all([
        store.update(true, 'ada@example.test', at(1)),
        store.update(false, 'bo@example.test', at(2)),
      ]);
      const results = [a, b];
      const first = results.find((r) => r.before.updatedAt === undefined);
      const second = results.find((r) => r.before.updatedAt !== undefined);
      expect(first).toBeDefined();
      expect(second?.before).toEqual(first?.after);
    });
  });
}
