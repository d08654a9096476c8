// The people store's rules when changes arrive at once. On PostgreSQL the calls are spread over
// two pools on one database (two replicas, several connections each), so they really run in
// parallel; the embedded engine has one connection and must keep the same rules for calls made
// at once in one process.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { SqlEngine } from '../../platform/sql/sql-engine';
import { ManualClock } from '../../test/manual-clock';
import { testTotpSecrets } from '../../test/totp-keys';
import {
  InvitationRevokedError,
  InvitationUsedError,
  LastAdminError,
  PersonNotFoundError,
} from './people-errors';
import { PeopleStore } from './people-store';
import {
  emptyPeople,
  fileUser,
  ISSUER,
  type OpenPeopleEngines,
  quickHash,
  START,
  TOTP,
} from './people-store.contract';

const HOUR = 60 * 60 * 1000;
const ROUNDS = 5;

export function peopleRacesContract(name: string, open: OpenPeopleEngines): void {
  describe(`the people store under parallel changes: ${name}`, () => {
    let engines: SqlEngine[];
    let close: () => Promise<void>;
    /** One store per engine (per replica), sharing one clock. */
    let stores: PeopleStore[];
    const on = (i: number) => stores[i % stores.length] as PeopleStore;
    beforeAll(async () => {
      ({ engines, close } = await open());
    }, 60_000);
    afterAll(() => close?.());
    beforeEach(async () => {
      await emptyPeople(engines[0] as SqlEngine);
      const clock = new ManualClock(START);
      stores = engines.map((engine) => new PeopleStore(engine, clock, testTotpSecrets()));
    });

    const activeAdmins = async () =>
      (await on(0).list()).filter((p) => p.role === 'admin' && !p.disabled).map((p) => p.email);

    it('ten demotions, disablings and removals of three admins at once leave exactly one admin', async () => {
      const admins = ['a1@example.test', 'a2@example.test', 'a3@example.test'];
      const users = await Promise.all([
        ...admins.map((email) => fileUser(email, 'admin')),
        fileUser('fin@example.test', 'finance'),
      ]);
      for (let round = 0; round < ROUNDS; round++) {
        await emptyPeople(engines[0] as SqlEngine);
        await on(0).importUsers(users);
        const calls = Array.from({ length: 10 }, (_, i) => {
          const store = on(i);
          const email = admins[(i + round) % admins.length] as string;
          const kind = (i + round) % 3;
          return kind === 0
            ? store.changeRole(email, 'finance')
            : kind === 1
              ? store.disable(email)
              : store.remove(email);
        });
        const outcomes = await Promise.allSettled(calls);
        for (const outcome of outcomes) {
          if (outcome.status === 'rejected') {
            // Refused as the last admin, or the person was removed by another call first.
            expect([LastAdminError, PersonNotFoundError]).toContain(
              (outcome.reason as object).constructor,
            );
          }
        }
        expect(outcomes.some((o) => o.status === 'rejected')).toBe(true);
        expect(await activeAdmins()).toHaveLength(1);
      }
    }, 60_000);

    it('of two admins demoted at once, exactly one is demoted', async () => {
      const users = await Promise.all([
        fileUser('a1@example.test', 'admin'),
        fileUser('a2@example.test', 'admin'),
      ]);
      for (let round = 0; round < ROUNDS * 2; round++) {
        await emptyPeople(engines[0] as SqlEngine);
        await on(0).importUsers(users);
        const outcomes = await Promise.allSettled([
          on(0).changeRole('a1@example.test', 'finance'),
          on(1).changeRole('a2@example.test', 'finance'),
        ]);
        expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
        const refused = outcomes.find((o) => o.status === 'rejected');
        expect(refused?.reason).toBeInstanceOf(LastAdminError);
        expect(await activeAdmins()).toHaveLength(1);
      }
    }, 60_000);

    it('of five acceptances of one invitation at once, exactly one signs the person up', async () => {
      const hashes = await Promise.all([1, 2, 3, 4, 5].map((n) => quickHash(`password-${n}`)));
      for (let round = 0; round < ROUNDS; round++) {
        await emptyPeople(engines[0] as SqlEngine);
        const { token } = await on(0).invite('new@example.test', 'admin', 'a@x.test', HOUR);
        const outcomes = await Promise.allSettled(
          hashes.map((hash, i) => on(i).acceptInvitation(token, hash, TOTP)),
        );
        const won = outcomes.flatMap((o, i) => (o.status === 'fulfilled' ? [i] : []));
        expect(won).toHaveLength(1);
        for (const outcome of outcomes) {
          if (outcome.status === 'rejected') {
            expect(outcome.reason).toBeInstanceOf(InvitationUsedError);
          }
        }
        const person = await on(1).find('new@example.test');
        expect(person).toMatchObject({ passwordHash: hashes[won[0] as number], version: 2 });
      }
    }, 60_000);

    it('two invitations of one email at once: both answer, and only one of their tokens works', async () => {
      const hash = await quickHash('pw');
      const [first, second] = await Promise.all([
        on(0).invite('new@example.test', 'finance', 'a@x.test', HOUR),
        on(1).invite('new@example.test', 'finance', 'b@x.test', HOUR),
      ]);
      const outcomes = await Promise.allSettled(
        [first, second].map((invitation) => on(0).acceptInvitation(invitation?.token, hash)),
      );
      expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
      const refused = outcomes.find((o) => o.status === 'rejected');
      expect(refused?.reason).toBeInstanceOf(InvitationRevokedError);
    });

    it('replicas importing the users file at once import each person once', async () => {
      const users = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          fileUser(`p${i}@example.test`, i < 2 ? 'admin' : 'finance'),
        ),
      );
      const results = await Promise.all([0, 1, 2, 3].map((i) => on(i).importUsers(users)));
      const added = results.flatMap((r) => r.added).sort();
      expect(added).toEqual(users.map((u) => u.email).sort());
      for (const result of results) {
        expect([...result.added, ...result.kept].sort()).toEqual(added);
      }
      expect((await on(1).list()).map((p) => p.email)).toEqual(added);
    });

    it('first sign-ins of one single sign-on identity at once make one person', async () => {
      const people = await Promise.all(
        [0, 1, 2, 3].map((i) =>
          on(i).upsertSsoPerson({
            issuer: ISSUER,
            subject: 'sub-1',
            email: 'zoe@example.test',
            role: 'finance',
          }),
        ),
      );
      expect(new Set(people.map((p) => p.email))).toEqual(new Set(['zoe@example.test']));
      expect(await on(0).list()).toHaveLength(1);
    });
  });
}
