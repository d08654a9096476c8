// One contract for the people store, run on every engine the index runs on (the embedded engine
// and PostgreSQL): what each method keeps and answers, what bad input gets, and the rules (the
// last admin, single-use invitations, a one-time import). The races are in
// people-races.contract.ts; the helpers here serve both.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { SqlEngine } from '../../platform/sql/sql-engine';
import { hashPassword } from '../../platform/users/password-hash';
import type { User } from '../../platform/users/user-directory';
import { ManualClock } from '../../test/manual-clock';
import { testTotpSecrets } from '../../test/totp-keys';
import {
  InvalidPersonInputError,
  InvitationExpiredError,
  InvitationNotFoundError,
  InvitationRevokedError,
  InvitationUsedError,
  LastAdminError,
  PersonExistsError,
  PersonNotFoundError,
  RoleFromProviderError,
  SecondFactorRequiredError,
  SsoEmailTakenError,
} from './people-errors';
import { PeopleStore } from './people-store';

/** Every engine the store runs on: PostgreSQL gives two pools on one database (two replicas). */
export type OpenPeopleEngines = () => Promise<{ engines: SqlEngine[]; close(): Promise<void> }>;

export const START = Date.UTC(2026, 10, 27, 9, 0);
export const TOTP = 'JBSWY3DPEHPK3PXQ';
export const ISSUER = 'https://idp.example.test';
const HOUR = 60 * 60 * 1000;

/** A cheap but well-formed scrypt hash (the store checks the encoding, not the cost). */
export const quickHash = (password: string) => hashPassword(password, { N: 1024, r: 8, p: 1 });

export async function rejectionOf(work: Promise<unknown>): Promise<unknown> {
  return work.then(
    (value) => {
      throw new Error(`expected a refusal, got ${JSON.stringify(value)}`);
    },
    (error: unknown) => error,
  );
}

export async function fileUser(
  email: string,
  role: User['role'],
  extra: Partial<User> = {},
): Promise<User> {
  return {
    email,
    role,
    passwordHash: await quickHash(`${email}-password`),
    ...(role === 'admin' ? { totpSecret: TOTP } : {}),
    ...extra,
  };
}

export async function emptyPeople(engine: SqlEngine): Promise<void> {
  await engine.query('DELETE FROM person_invitation');
  await engine.query('DELETE FROM person_import');
  await engine.query('DELETE FROM person');
}

export function peopleStoreContract(name: string, open: OpenPeopleEngines): void {
  describe(`the people store: ${name}`, () => {
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

    it('starts with nobody', async () => {
      expect(await store.list()).toEqual([]);
      expect(await store.find('nobody@example.test')).toBeUndefined();
      expect(await store.findBySso(ISSUER, 'sub-1')).toBeUndefined();
    });

    it('knows whether anyone enabled has a password: single sign-on people and pending invitees do not count', async () => {
      expect(await store.anyoneWithPassword()).toBe(false);
      await store.upsertSsoPerson({
        issuer: ISSUER,
        subject: 'sso-sub',
        email: 'sso@example.test',
        role: 'admin',
      });
      const { token } = await store.invite(
        'new@example.test',
        'finance',
        'sso@example.test',
        60_000,
      );
      expect(await store.anyoneWithPassword()).toBe(false);
      await store.acceptInvitation(token, hash);
      expect(await store.anyoneWithPassword()).toBe(true);
      await store.disable('new@example.test');
      expect(await store.anyoneWithPassword()).toBe(false);
    });

    it("imports the users file's people, lower-cased, with their credentials, listed without them", async () => {
      const admin = await fileUser('Ana@Example.TEST', 'admin', {
        sso: { issuer: `${ISSUER}/`, subject: 'ana-sub' },
      });
      const finance = await fileUser('bo@example.test', 'finance', { disabled: true });
      expect(await store.importUsers([finance, admin])).toEqual({
        added: ['ana@example.test', 'bo@example.test'],
        kept: [],
      });
      expect(await store.find('ANA@example.test')).toEqual({
        email: 'ana@example.test',
        role: 'admin',
        disabled: false,
        source: 'file',
        sso: { issuer: ISSUER, subject: 'ana-sub' },
        hasPassword: true,
        hasTotp: true,
        pending: false,
        createdAt: new Date(START).toISOString(),
        updatedAt: new Date(START).toISOString(),
        version: 1,
        passwordHash: admin.passwordHash,
        totpSecret: TOTP,
      });
      expect((await store.findBySso(ISSUER, 'ana-sub'))?.email).toBe('ana@example.test');
      const listed = await store.list();
      expect(listed.map((p) => [p.email, p.role, p.disabled])).toEqual([
        ['ana@example.test', 'admin', false],
        ['bo@example.test', 'finance', true],
      ]);
      expect(JSON.stringify(listed)).not.toMatch(/scrypt|JBSWY/);
    });

    it('imports once: what the product changed or removed stays so, and a new entry is added', async () => {
      const ana = await fileUser('ana@example.test', 'admin');
      const bo = await fileUser('bo@example.test', 'admin');
      const cy = await fileUser('cy@example.test', 'finance');
      await store.importUsers([ana, bo, cy]);
      await store.changeRole('bo@example.test', 'finance');
      await store.remove('cy@example.test');
      await store.invite('dee@example.test', 'finance', 'ana@example.test', HOUR);
      const dee = await fileUser('dee@example.test', 'admin');
      const eve = await fileUser('eve@example.test', 'finance');
      expect(await store.importUsers([ana, bo, cy, dee, eve])).toEqual({
        added: ['eve@example.test'],
        kept: ['ana@example.test', 'bo@example.test', 'cy@example.test', 'dee@example.test'],
      });
      expect((await store.list()).map((p) => [p.email, p.role, p.source])).toEqual([
        ['ana@example.test', 'admin', 'file'],
        ['bo@example.test', 'finance', 'file'],
        ['dee@example.test', 'finance', 'invited'],
        ['eve@example.test', 'finance', 'file'],
      ]);
    });

    it('refuses a users-file entry that is not a person, importing nothing', async () => {
      const good = await fileUser('ana@example.test', 'admin');
      const bad = { ...(await fileUser('bo@example.test', 'finance')), role: 'owner' };
      const error = await rejectionOf(store.importUsers([good, bad as User]));
      expect(error).toBeInstanceOf(InvalidPersonInputError);
      expect((error as InvalidPersonInputError).field).toBe('role');
      expect(await store.list()).toEqual([]);
    });

    it('adds a single sign-on person once, their role following the claims', async () => {
      const first = await store.upsertSsoPerson({
        issuer: ISSUER,
        subject: 'sub-1',
        email: 'Zoe@Example.test',
        role: 'finance',
      });
      expect(first).toMatchObject({
        email: 'zoe@example.test',
        role: 'finance',
        source: 'sso',
        sso: { issuer: ISSUER, subject: 'sub-1' },
        hasPassword: false,
        pending: false,
        version: 1,
      });
      expect(first.passwordHash).toBeUndefined();
      const again = await store.upsertSsoPerson({
        issuer: `${ISSUER}/`,
        subject: 'sub-1',
        email: 'zoe@example.test',
        role: 'finance',
      });
      expect(again).toEqual(first);
      clock.advance(1000);
      const promoted = await store.upsertSsoPerson({
        issuer: ISSUER,
        subject: 'sub-1',
        email: 'zoe@example.test',
        role: 'admin',
      });
      expect(promoted).toMatchObject({ role: 'admin', version: 2 });
      expect(await rejectionOf(store.changeRole('zoe@example.test', 'finance'))).toBeInstanceOf(
        RoleFromProviderError,
      );
      expect((await store.find('zoe@example.test'))?.role).toBe('admin');
    });

    it('never turns an unlinked identity into a person already here; a linked one keeps the role set here', async () => {
      await store.importUsers([
        await fileUser('ana@example.test', 'admin', { sso: { issuer: ISSUER, subject: 'ana' } }),
        await fileUser('bo@example.test', 'finance'),
      ]);
      const error = await rejectionOf(
        store.upsertSsoPerson({
          issuer: ISSUER,
          subject: 'stranger',
          email: 'BO@example.test',
          role: 'admin',
        }),
      );
      expect(error).toBeInstanceOf(SsoEmailTakenError);
      expect(await store.findBySso(ISSUER, 'stranger')).toBeUndefined();
      const ana = await store.upsertSsoPerson({
        issuer: ISSUER,
        subject: 'ana',
        email: 'whatever@example.test',
        role: 'finance',
      });
      expect(ana).toMatchObject({ email: 'ana@example.test', role: 'admin', version: 1 });
    });

    it('invites: the person appears pending and only the SHA-256 of the token is stored', async () => {
      const invitation = await store.invite(
        'New@Example.test',
        'finance',
        'ana@example.test',
        HOUR,
      );
      expect(invitation).toEqual({
        token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
        email: 'new@example.test',
        role: 'finance',
        expiresAt: new Date(START + HOUR).toISOString(),
      });
      expect(await store.find('new@example.test')).toMatchObject({
        role: 'finance',
        source: 'invited',
        pending: true,
        hasPassword: false,
        version: 1,
      });
      const rows = await engine.query<{ token_sha256: string; invited_by: string; all: string }>(
        'SELECT token_sha256, invited_by, row_to_json(i)::text AS all FROM person_invitation i',
      );
      expect(rows).toHaveLength(1);
      expect(rows[0]?.token_sha256).toBe(
        createHash('sha256').update(invitation.token).digest('hex'),
      );
      expect(rows[0]?.invited_by).toBe('ana@example.test');
      expect(rows[0]?.all).not.toContain(invitation.token);
    });

    it('refuses to invite someone who can sign in, a bad email, role or lifetime', async () => {
      await store.importUsers([await fileUser('ana@example.test', 'admin')]);
      const invite = (email: unknown, role: unknown, ttl = HOUR) =>
        rejectionOf(store.invite(email, role, 'ana@example.test', ttl));
      expect(await invite('ANA@example.test', 'finance')).toBeInstanceOf(PersonExistsError);
      for (const [email, role, ttl, field] of [
        ['not-an-email', 'finance', HOUR, 'email'],
        ['x@example.test', 'owner', HOUR, 'role'],
        ['x@example.test', 'finance', 0, 'ttlMs'],
        ['x@example.test', 'finance', 31 * 24 * HOUR, 'ttlMs'],
      ] as const) {
        const error = await invite(email, role, ttl);
        expect(error).toBeInstanceOf(InvalidPersonInputError);
        expect((error as InvalidPersonInputError).field).toBe(field);
      }
      expect((await store.list()).map((p) => p.email)).toEqual(['ana@example.test']);
    });

    it('accepts an invitation once: the password and TOTP secret are set and the version moves', async () => {
      const { token } = await store.invite('new@example.test', 'admin', 'ana@example.test', HOUR);
      clock.advance(HOUR - 1);
      const person = await store.acceptInvitation(token, hash, TOTP);
      expect(person).toMatchObject({
        email: 'new@example.test',
        role: 'admin',
        pending: false,
        passwordHash: hash,
        hasTotp: true,
        version: 2,
        updatedAt: new Date(START + HOUR - 1).toISOString(),
      });
      // A change answers without the secret; finding the person opens it.
      expect(person).not.toHaveProperty('totpSecret');
      expect((await store.find('new@example.test'))?.totpSecret).toBe(TOTP);
      expect(await rejectionOf(store.acceptInvitation(token, hash, TOTP))).toBeInstanceOf(
        InvitationUsedError,
      );
      // Signed up: a second invitation is refused.
      expect(
        await rejectionOf(store.invite('new@example.test', 'admin', 'a@x.test', HOUR)),
      ).toBeInstanceOf(PersonExistsError);
    });

    it('refuses an unknown, expired, replaced or withdrawn invitation, each with its own error', async () => {
      const unknown = await rejectionOf(store.acceptInvitation('A'.repeat(43), hash, undefined));
      expect(unknown).toBeInstanceOf(InvitationNotFoundError);
      expect(await rejectionOf(store.acceptInvitation('short', hash))).toBeInstanceOf(
        InvitationNotFoundError,
      );

      const expiring = await store.invite('late@example.test', 'finance', 'a@x.test', HOUR);
      clock.advance(HOUR);
      expect(await rejectionOf(store.acceptInvitation(expiring.token, hash))).toBeInstanceOf(
        InvitationExpiredError,
      );
      expect((await store.find('late@example.test'))?.pending).toBe(true);

      const older = await store.invite('re@example.test', 'finance', 'a@x.test', HOUR);
      const newer = await store.invite('re@example.test', 'admin', 'a@x.test', HOUR);
      expect(await rejectionOf(store.acceptInvitation(older.token, hash))).toBeInstanceOf(
        InvitationRevokedError,
      );
      expect(await store.acceptInvitation(newer.token, hash, TOTP)).toMatchObject({
        role: 'admin',
        pending: false,
      });

      const withdrawn = await store.invite('gone@example.test', 'finance', 'a@x.test', HOUR);
      await store.remove('gone@example.test');
      expect(await rejectionOf(store.acceptInvitation(withdrawn.token, hash))).toBeInstanceOf(
        InvitationRevokedError,
      );
      expect(await store.find('gone@example.test')).toBeUndefined();
    });

    it("refuses an admin's acceptance without a TOTP secret, or a bad hash, leaving the invitation open", async () => {
      const { token } = await store.invite('adm@example.test', 'admin', 'a@x.test', HOUR);
      expect(await rejectionOf(store.acceptInvitation(token, hash))).toBeInstanceOf(
        SecondFactorRequiredError,
      );
      const badHash = await rejectionOf(store.acceptInvitation(token, 'plain-password', TOTP));
      expect((badHash as InvalidPersonInputError).field).toBe('passwordHash');
      const badSecret = await rejectionOf(store.acceptInvitation(token, hash, 'not base32!'));
      expect((badSecret as InvalidPersonInputError).field).toBe('totpSecret');
      expect(await store.acceptInvitation(token, hash, TOTP)).toMatchObject({ pending: false });
    });

    it('changes roles, disables and enables, bumping the version only when something changed', async () => {
      await store.importUsers([
        await fileUser('ana@example.test', 'admin'),
        await fileUser('bo@example.test', 'finance'),
      ]);
      clock.advance(5_000);
      expect(await store.changeRole('BO@example.test', 'admin')).toMatchObject({
        email: 'bo@example.test',
        role: 'admin',
        version: 2,
        updatedAt: new Date(START + 5_000).toISOString(),
      });
      expect((await store.changeRole('bo@example.test', 'admin')).version).toBe(2);
      expect(await store.disable('bo@example.test')).toMatchObject({ disabled: true, version: 3 });
      expect((await store.disable('bo@example.test')).version).toBe(3);
      expect(await store.enable('bo@example.test')).toMatchObject({ disabled: false, version: 4 });
      expect((await store.enable('bo@example.test')).version).toBe(4);
      expect(await store.changeRole('bo@example.test', 'finance')).toMatchObject({
        role: 'finance',
        version: 5,
      });
      await store.remove('bo@example.test');
      expect(await store.find('bo@example.test')).toBeUndefined();
    });

    it('answers an unknown person, a bad role or a bad email with typed errors', async () => {
      await store.importUsers([await fileUser('ana@example.test', 'admin')]);
      for (const work of [
        () => store.changeRole('nobody@example.test', 'finance'),
        () => store.disable('nobody@example.test'),
        () => store.enable('nobody@example.test'),
        () => store.remove('nobody@example.test'),
        () => store.recordSignIn('nobody@example.test', 'password'),
      ]) {
        const error = await rejectionOf(work());
        expect(error).toBeInstanceOf(PersonNotFoundError);
        expect((error as PersonNotFoundError).email).toBe('nobody@example.test');
      }
      const role = await rejectionOf(store.changeRole('ana@example.test', 'superuser'));
      expect((role as InvalidPersonInputError).field).toBe('role');
      const email = await rejectionOf(store.find('ana at example'));
      expect((email as InvalidPersonInputError).field).toBe('email');
      const method = await rejectionOf(store.recordSignIn('ana@example.test', 'carrier-pigeon'));
      expect((method as InvalidPersonInputError).field).toBe('method');
      expect((await store.find('ana@example.test'))?.version).toBe(1);
    });

    it('keeps the last enabled admin who can sign in: no demotion, disabling or removal', async () => {
      await store.importUsers([
        await fileUser('ana@example.test', 'admin'),
        await fileUser('off@example.test', 'admin', { disabled: true }),
        await fileUser('fin@example.test', 'finance'),
      ]);
      // An invited admin who has not signed up cannot sign in: they do not count.
      await store.invite('soon@example.test', 'admin', 'ana@example.test', HOUR);
      for (const [work, change] of [
        [() => store.changeRole('ana@example.test', 'finance'), 'demote'],
        [() => store.disable('Ana@example.test'), 'disable'],
        [() => store.remove('ana@example.test'), 'remove'],
      ] as const) {
        const error = await rejectionOf(work());
        expect(error).toBeInstanceOf(LastAdminError);
        expect(error).toMatchObject({ email: 'ana@example.test', change });
      }
      expect(await store.find('ana@example.test')).toMatchObject({
        role: 'admin',
        disabled: false,
        version: 1,
      });
      // The others may change freely.
      await store.remove('off@example.test');
      await store.remove('soon@example.test');
      await store.disable('fin@example.test');
      // A second admin (here through single sign-on, with no password) lets the first go.
      await store.upsertSsoPerson({
        issuer: ISSUER,
        subject: 's',
        email: 'z@x.test',
        role: 'admin',
      });
      await store.changeRole('ana@example.test', 'finance');
      expect(await rejectionOf(store.disable('z@x.test'))).toBeInstanceOf(LastAdminError);
      // A disabled admin enabled again counts again.
      await store.importUsers([await fileUser('back@example.test', 'admin', { disabled: true })]);
      await store.enable('back@example.test');
      await store.disable('z@x.test');
      expect((await store.list()).filter((p) => p.role === 'admin' && !p.disabled)).toHaveLength(1);
    });

    it('records a sign-in without changing the version', async () => {
      await store.importUsers([await fileUser('ana@example.test', 'admin')]);
      clock.advance(60_000);
      await store.recordSignIn('ANA@example.test', 'passkey');
      expect(await store.find('ana@example.test')).toMatchObject({
        lastSignIn: { at: new Date(START + 60_000).toISOString(), method: 'passkey' },
        version: 1,
        updatedAt: new Date(START).toISOString(),
      });
    });
  });
}
