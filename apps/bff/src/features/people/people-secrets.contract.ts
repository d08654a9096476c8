// Second-factor secrets at rest, on every engine the people store runs on: the columns hold
// envelopes only, never the base32 secret; an envelope moved to another row does not open;
// after a key change old secrets still open and are sealed again with the new key (when used,
// and by `sealSecrets`); the secrets kept in clear before the upgrade are sealed; the secret
// made for an invitee is bound to that invitation. A missing or wrong key is refused by name.
import { readdir } from 'node:fs/promises';
import { runner } from 'node-pg-migrate';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  TotpKeyMissingError,
  TotpSecretBox,
  TotpSecretUnreadableError,
  totpKeyId,
} from '../../platform/security/totp-secret-box';
import {
  applyIndexMigrations,
  INDEX_MIGRATIONS_TABLE,
  indexMigrationsDir,
} from '../../platform/sql/index-migrations';
import type { SqlEngine } from '../../platform/sql/sql-engine';
import { silentLogger } from '../../test/audit-cluster';
import { ManualClock } from '../../test/manual-clock';
import { OLD_TOTP_KEY, OTHER_TOTP_KEY, TEST_TOTP_KEY, testTotpSecrets } from '../../test/totp-keys';
import { InvitationSecretReplacedError } from './people-errors';
import { PeopleStore } from './people-store';
import {
  emptyPeople,
  fileUser,
  type OpenPeopleEngines,
  quickHash,
  rejectionOf,
  START,
  TOTP,
} from './people-store.contract';

const HOUR = 60 * 60 * 1000;
const ANA = 'ana@example.test';
const BO = 'bo@example.test';
const NEW = 'new@example.test';
const OTHER_SECRET = 'KRUGS4ZANFZSAYJAONSWG4TFOQQGC3TE';
const SEALED_MIGRATION = '20261128090000000_totp-secrets-sealed.sql';

interface StoredSecrets {
  email: string;
  totp_secret: string | null;
  totp_secret_unsealed: string | null;
  version: number;
  updated_at: Date | string;
}

/** Every column of every person, as a dump of the database would hold them. */
const stored = (engine: SqlEngine) =>
  engine.query<StoredSecrets>('SELECT * FROM person ORDER BY email');
const keyOf = (sealed: string | null) => sealed?.split(':')[1];
const boxWith = (current: Buffer, previous: Buffer[] = []) =>
  new TotpSecretBox({ current, previous });

/** A fresh database with no migrations applied, for the upgrade. */
export type OpenEmptyEngine = () => Promise<{ engine: SqlEngine; close(): Promise<void> }>;

export function peopleSecretsContract(
  name: string,
  open: OpenPeopleEngines,
  openEmpty: OpenEmptyEngine,
): void {
  describe(`second-factor secrets at rest: ${name}`, () => {
    let engine: SqlEngine;
    let close: () => Promise<void>;
    let clock: ManualClock;
    let store: PeopleStore;
    let hash: string;
    beforeAll(async () => {
      const opened = await open();
      engine = opened.engines[0] as SqlEngine;
      close = opened.close;
      hash = await quickHash('new-password');
    }, 60_000);
    afterAll(() => close?.());
    beforeEach(async () => {
      await emptyPeople(engine);
      clock = new ManualClock(START);
      store = new PeopleStore(engine, clock, testTotpSecrets());
    });

    it('never holds the base32 secret: imported from the users file or signed up, each is an envelope', async () => {
      await store.importUsers([await fileUser(ANA, 'admin'), await fileUser(BO, 'finance')]);
      const { token } = await store.invite(NEW, 'admin', ANA, HOUR);
      await store.acceptInvitation(token, hash, OTHER_SECRET);

      const rows = await stored(engine);
      expect(rows.map((r) => [r.email, keyOf(r.totp_secret), r.totp_secret_unsealed])).toEqual([
        [ANA, totpKeyId(TEST_TOTP_KEY), null],
        [BO, undefined, null],
        [NEW, totpKeyId(TEST_TOTP_KEY), null],
      ]);
      const dump = JSON.stringify(rows);
      expect(dump).not.toContain(TOTP);
      expect(dump).not.toContain(OTHER_SECRET);
      expect((await store.find(ANA))?.totpSecret).toBe(TOTP);
      expect((await store.find(NEW))?.totpSecret).toBe(OTHER_SECRET);
      expect(await store.find(BO)).not.toHaveProperty('totpSecret');
      expect((await store.list()).map((p) => p.hasTotp)).toEqual([true, false, true]);
      // Opening a secret sealed with the current key writes nothing.
      expect(await stored(engine)).toEqual(rows);
    });

    it('the database itself refuses a secret in clear in the sealed columns', async () => {
      await store.importUsers([await fileUser(ANA, 'admin')]);
      await expect(
        engine.query('UPDATE person SET totp_secret = $2 WHERE email = $1', [ANA, TOTP]),
      ).rejects.toThrow(/person_totp_secret_sealed/);
      await store.invite(NEW, 'admin', ANA, HOUR);
      await expect(
        engine.query('UPDATE person_invitation SET totp_secret = $1', [TOTP]),
      ).rejects.toThrow(/person_invitation_totp_secret_sealed/);
      await expect(
        engine.query('UPDATE person SET totp_secret_unsealed = $2 WHERE email = $1', [ANA, TOTP]),
      ).rejects.toThrow(/person_totp_secret_once/);
    });

    it("an envelope copied to another person's row does not open there", async () => {
      await store.importUsers([await fileUser(ANA, 'admin'), await fileUser(BO, 'admin')]);
      await engine.query(
        `UPDATE person SET totp_secret = (SELECT totp_secret FROM person WHERE email = $1)
          WHERE email = $2`,
        [ANA, BO],
      );
      const refused = await rejectionOf(store.find(BO));
      expect(refused).toBeInstanceOf(TotpSecretUnreadableError);
      expect((refused as Error).message).toMatch(/copied from another row/);
      expect((await store.find(ANA))?.totpSecret).toBe(TOTP);
    });

    it('after a key change old secrets still open, and are sealed again with the new key when used and by sealSecrets', async () => {
      const before = new PeopleStore(engine, clock, boxWith(OLD_TOTP_KEY));
      await before.importUsers([await fileUser(ANA, 'admin'), await fileUser(BO, 'admin')]);
      const { token } = await before.invite(NEW, 'admin', ANA, HOUR);
      const { secret: pending } = await before.issueInvitationSecret(token);
      const was = await stored(engine);
      expect(was.map((r) => keyOf(r.totp_secret))).toEqual([
        totpKeyId(OLD_TOTP_KEY),
        totpKeyId(OLD_TOTP_KEY),
        undefined,
      ]);

      clock.advance(HOUR / 2);
      const after = new PeopleStore(engine, clock, testTotpSecrets([OLD_TOTP_KEY]));
      // Used: it opens, and the row is sealed again with the current key, the person unchanged.
      expect((await after.find(ANA))?.totpSecret).toBe(TOTP);
      const used = await stored(engine);
      expect(used.map((r) => keyOf(r.totp_secret))).toEqual([
        totpKeyId(TEST_TOTP_KEY),
        totpKeyId(OLD_TOTP_KEY),
        undefined,
      ]);
      expect(used.map((r) => [r.version, new Date(r.updated_at).getTime()])).toEqual(
        was.map((r) => [r.version, new Date(r.updated_at).getTime()]),
      );

      // Everyone else at start-up, the open invitation's secret too.
      expect(await after.sealSecrets()).toEqual({ sealed: 0, resealed: 1, unreadable: [] });
      expect((await stored(engine)).map((r) => keyOf(r.totp_secret))).toEqual([
        totpKeyId(TEST_TOTP_KEY),
        totpKeyId(TEST_TOTP_KEY),
        undefined,
      ]);
      const [invitation] = await engine.query<{ totp_secret: string }>(
        'SELECT totp_secret FROM person_invitation',
      );
      expect(keyOf(invitation?.totp_secret ?? null)).toBe(totpKeyId(TEST_TOTP_KEY));
      expect(await after.sealSecrets()).toEqual({ sealed: 0, resealed: 0, unreadable: [] });

      // The old key can go now: nothing needs it.
      const rotated = new PeopleStore(engine, clock, testTotpSecrets());
      expect((await rotated.find(BO))?.totpSecret).toBe(TOTP);
      expect(await rotated.invitationSecret(token)).toBe(pending);
      expect(await rotated.acceptInvitation(token, hash, pending)).toMatchObject({
        hasTotp: true,
      });
    });

    it('a wrong key refuses by name, without touching the secrets; sealSecrets lists whom it cannot read', async () => {
      // Without a key nothing is sealed, even when there is nothing to seal yet.
      expect(await rejectionOf(new PeopleStore(engine, clock).sealSecrets())).toBeInstanceOf(
        TotpKeyMissingError,
      );
      await store.importUsers([await fileUser(ANA, 'admin'), await fileUser(BO, 'finance')]);
      const { token } = await store.invite(NEW, 'admin', ANA, HOUR);
      await store.issueInvitationSecret(token);
      const sealed = await stored(engine);
      const invitations = () => engine.query('SELECT * FROM person_invitation');
      const pending = await invitations();
      const wrong = new PeopleStore(engine, clock, boxWith(OTHER_TOTP_KEY));
      const refused = await rejectionOf(wrong.find(ANA));
      expect(refused).toBeInstanceOf(TotpSecretUnreadableError);
      expect((refused as Error).message).toBe(
        `sealed with key ${totpKeyId(TEST_TOTP_KEY)}, which neither TOTP_ENCRYPTION_KEY nor TOTP_ENCRYPTION_KEYS_PREVIOUS holds`,
      );
      // Someone without a secret is found as before.
      expect((await wrong.find(BO))?.email).toBe(BO);
      expect(await wrong.sealSecrets()).toEqual({
        sealed: 0,
        resealed: 0,
        unreadable: [{ email: ANA, keyId: totpKeyId(TEST_TOTP_KEY) }],
      });
      expect(await stored(engine)).toEqual(sealed);
      // The invitee's secret it cannot read either: left for a new one to replace.
      expect(await invitations()).toEqual(pending);
      expect(await wrong.invitationSecret(token)).toBeUndefined();

      const none = new PeopleStore(engine, clock);
      expect(await rejectionOf(none.find(ANA))).toBeInstanceOf(TotpKeyMissingError);
      expect(await rejectionOf(none.sealSecrets())).toBeInstanceOf(TotpKeyMissingError);
      expect(await rejectionOf(none.importUsers([await fileUser(NEW, 'admin')]))).toBeInstanceOf(
        TotpKeyMissingError,
      );
      expect(await stored(engine)).toEqual(sealed);
    });

    it('a store failure while sealing again fails sealSecrets; it is never taken for an unreadable secret', async () => {
      const before = new PeopleStore(engine, clock, boxWith(OLD_TOTP_KEY));
      await before.importUsers([await fileUser(ANA, 'admin')]);
      const { token } = await before.invite(NEW, 'admin', ANA, HOUR);
      await before.issueInvitationSecret(token);
      for (const failing of [
        /^UPDATE person SET totp_secret/,
        /^UPDATE person_invitation SET totp_secret = \$3/,
      ]) {
        const broken: SqlEngine = {
          ...engine,
          query: (text, params) =>
            failing.test(text.trim())
              ? Promise.reject(new Error('connection lost'))
              : engine.query(text, params),
        };
        const after = new PeopleStore(broken, clock, testTotpSecrets([OLD_TOTP_KEY]));
        await expect(after.sealSecrets(), String(failing)).rejects.toThrow('connection lost');
      }
    });

    it("the invitee's secret is made here, bound to the invitation; a newer one replaces it", async () => {
      await store.importUsers([await fileUser(ANA, 'admin')]);
      const { token } = await store.invite(NEW, 'admin', ANA, HOUR);
      expect(await store.invitationSecret(token)).toBeUndefined();
      const first = await store.issueInvitationSecret(token);
      expect(first).toEqual({ email: NEW, secret: expect.stringMatching(/^[A-Z2-7]{32}$/) });
      const kept = async () =>
        (
          await engine.query<{ totp_secret: string | null }>(
            'SELECT totp_secret FROM person_invitation',
          )
        )
          .map((r) => r.totp_secret)
          .join();
      expect(await kept()).toMatch(/^v1:/);
      expect(await kept()).not.toContain(first.secret);
      expect(await store.invitationSecret(token)).toBe(first.secret);
      const second = await store.issueInvitationSecret(token);
      expect(second.secret).not.toBe(first.secret);
      expect(await store.invitationSecret(token)).toBe(second.secret);

      // Only the one made last becomes theirs; a secret from elsewhere is refused too.
      for (const secret of [first.secret, 'JBSWY3DPEHPK3PXP', OTHER_SECRET]) {
        expect(await rejectionOf(store.acceptInvitation(token, hash, secret))).toBeInstanceOf(
          InvitationSecretReplacedError,
        );
      }
      expect((await store.find(NEW))?.pending).toBe(true);

      // Moved to another invitation's row, the envelope does not open there.
      const other = await store.invite('other@example.test', 'admin', ANA, HOUR);
      await engine.query(
        `UPDATE person_invitation SET totp_secret =
           (SELECT totp_secret FROM person_invitation WHERE email = $1) WHERE email = $2`,
        [NEW, 'other@example.test'],
      );
      expect(await store.invitationSecret(other.token)).toBeUndefined();

      await store.acceptInvitation(token, hash, second.secret);
      expect((await store.find(NEW))?.totpSecret).toBe(second.secret);
      expect(await store.invitationSecret(token)).toBeUndefined();
      // The invitation forgets its copy once used; the person's is sealed to them.
      expect(
        await engine.query('SELECT totp_secret FROM person_invitation WHERE email = $1', [NEW]),
      ).toEqual([{ totp_secret: null }]);
      expect(JSON.stringify(await stored(engine))).not.toContain(second.secret);
    });

    it('makes no secret for an invitation that cannot be used, and forgets those of closed ones', async () => {
      await store.importUsers([await fileUser(ANA, 'admin')]);
      const { token } = await store.invite(NEW, 'admin', ANA, HOUR);
      await store.issueInvitationSecret(token);
      const replaced = await store.invite(NEW, 'admin', ANA, HOUR);
      await expect(store.issueInvitationSecret(token)).rejects.toMatchObject({
        code: 'invitation_revoked',
      });
      await expect(store.issueInvitationSecret('A'.repeat(43))).rejects.toMatchObject({
        code: 'invitation_not_found',
      });
      await expect(store.issueInvitationSecret('short')).rejects.toMatchObject({
        code: 'invitation_not_found',
      });
      const secretsKept = async () =>
        (
          await engine.query<{ email: string }>(
            'SELECT email FROM person_invitation WHERE totp_secret IS NOT NULL',
          )
        ).length;
      expect(await secretsKept()).toBe(0);

      await store.issueInvitationSecret(replaced.token);
      expect(await secretsKept()).toBe(1);
      clock.advance(HOUR);
      await expect(store.issueInvitationSecret(replaced.token)).rejects.toMatchObject({
        code: 'invitation_expired',
      });
      expect(await store.sealSecrets()).toEqual({ sealed: 0, resealed: 0, unreadable: [] });
      expect(await secretsKept()).toBe(0);

      const withdrawn = await store.invite('w@example.test', 'admin', ANA, HOUR);
      await store.issueInvitationSecret(withdrawn.token);
      await store.withdrawInvitation('w@example.test');
      const removed = await store.invite('r@example.test', 'finance', ANA, HOUR);
      await store.issueInvitationSecret(removed.token);
      await store.remove('r@example.test');
      expect(await secretsKept()).toBe(0);
    });

    it('upgrading: the secrets kept in clear are moved aside by the migration and sealed at first open or use', async () => {
      const empty = await openEmpty();
      try {
        const { engine: old } = empty;
        const files = (await readdir(indexMigrationsDir())).filter((f) => f.endsWith('.sql'));
        const before = files.sort().indexOf(SEALED_MIGRATION);
        expect(before).toBeGreaterThan(0);
        await old.withMigrationClient((dbClient) =>
          runner({
            dbClient: dbClient as never,
            dir: indexMigrationsDir(),
            migrationsTable: INDEX_MIGRATIONS_TABLE,
            direction: 'up',
            count: before,
            singleTransaction: true,
            noLock: old.kind === 'embedded',
            logger: { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} },
          }),
        );
        // As the previous release kept them: the base32 secret in `totp_secret`.
        for (const [email, secret] of [
          [ANA, TOTP],
          [BO, OTHER_SECRET],
          // Not a secret at all: never accepted, and reported rather than sealed.
          ['cy@example.test', 'not a base32 secret'],
        ] as const) {
          await old.query(
            `INSERT INTO person (email, role, password_hash, totp_secret, source, created_at,
               updated_at, version) VALUES ($1, 'admin', $2, $3, 'file', $4, $4, 3)`,
            [email, hash, secret, new Date(START).toISOString()],
          );
        }
        await applyIndexMigrations(old, silentLogger);
        const moved = await stored(old);
        expect(moved.map((r) => [r.email, r.totp_secret, r.totp_secret_unsealed])).toEqual([
          [ANA, null, TOTP],
          [BO, null, OTHER_SECRET],
          ['cy@example.test', null, 'not a base32 secret'],
        ]);

        const upgraded = new PeopleStore(old, clock, testTotpSecrets());
        expect(await upgraded.list()).toMatchObject([
          { hasTotp: true },
          { hasTotp: true },
          { hasTotp: true },
        ]);
        // Used before the start-up pass reached them: still verifies, sealed there and then.
        expect((await upgraded.find(BO))?.totpSecret).toBe(OTHER_SECRET);
        expect(await upgraded.sealSecrets()).toEqual({
          sealed: 1,
          resealed: 0,
          unreadable: [{ email: 'cy@example.test', keyId: undefined }],
        });
        const sealed = await stored(old);
        expect(
          sealed.map((r) => [keyOf(r.totp_secret), r.totp_secret_unsealed, r.version]),
        ).toEqual([
          [totpKeyId(TEST_TOTP_KEY), null, 3],
          [totpKeyId(TEST_TOTP_KEY), null, 3],
          [undefined, 'not a base32 secret', 3],
        ]);
        const malformed = await rejectionOf(upgraded.find('cy@example.test'));
        expect(malformed).toBeInstanceOf(TotpSecretUnreadableError);
        expect((malformed as Error).message).toBe('kept in clear, and not a base32 secret');
        expect(JSON.stringify(sealed)).not.toMatch(new RegExp(`${TOTP}|${OTHER_SECRET}`));
        expect((await upgraded.find(ANA))?.totpSecret).toBe(TOTP);
        expect((await upgraded.find(BO))?.totpSecret).toBe(OTHER_SECRET);
      } finally {
        await empty.close();
      }
    }, 60_000);
  });
}
