// The people store behind sign-in and sessions, on the embedded engine: who may sign in, and
// which sessions go on after a person changes or an admin ends a session.
import type { Request, Response } from 'express';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AppError } from '../../core/app-error';
import { TotpSecretBox, TotpSecretUnreadableError } from '../../platform/security/totp-secret-box';
import { SessionService } from '../../platform/sessions/session-service';
import { MemorySessionStore } from '../../platform/sessions/session-store';
import type { SqlEngine } from '../../platform/sql/sql-engine';
import { migratedMemoryEngine } from '../../test/engines/embedded';
import { ManualClock } from '../../test/manual-clock';
import { OTHER_TOTP_KEY, testTotpSecrets } from '../../test/totp-keys';
import { whoSignedIn } from '../sso';
import { PeopleStore } from './people-store';
import { emptyPeople, fileUser, ISSUER, START, TOTP } from './people-store.contract';
import { PersonSessionTable } from './person-session-table';
import { SqlPersonDirectory } from './sql-person-directory';
import { sqlPersonSessions } from './sql-person-sessions';

const MINUTE = 60_000;
const limits = { idleMs: 15 * MINUTE, absoluteMs: 12 * 60 * MINUTE };

let engine: SqlEngine;
beforeAll(async () => {
  engine = await migratedMemoryEngine();
});
afterAll(() => engine.close());

function setUp() {
  const clock = new ManualClock(START);
  const people = new PeopleStore(engine, clock, testTotpSecrets());
  const table = new PersonSessionTable(engine);
  const registry = sqlPersonSessions({
    table: async () => table,
    people: async () => people,
    clock,
    limits,
  });
  return { clock, people, table, registry };
}

async function directoryOver(people: PeopleStore, table: PersonSessionTable) {
  return SqlPersonDirectory.create({ people: async () => people, sessions: async () => table });
}

/** A session service over the directory and registry, and a browser-like way to use it. */
function sessionsFor(
  directory: SqlPersonDirectory,
  registry: ReturnType<typeof sqlPersonSessions>,
  clock: ManualClock,
) {
  const service = new SessionService(
    new MemorySessionStore(clock),
    clock,
    {
      cookie: { name: 'cc_session', secure: false },
      session: { ...limits, stepUpMs: 5 * MINUTE },
      sessionSecret: 'a-secret-for-the-people-directory-tests',
    },
    directory,
    registry,
  );
  const request = (id?: string) =>
    ({ headers: id ? { cookie: `cc_session=${id}` } : {} }) as Request;
  const response = () => {
    const res = { id: '', cookie: (_n: string, v: string) => (res.id = v), clearCookie() {} };
    return res;
  };
  const signIn = async (email: string, password: string) => {
    const person = await directory.authenticate(email, password);
    if (!person) throw new Error('expected the sign-in to succeed');
    const res = response();
    await service.start(
      request(),
      res as unknown as Response,
      { email: person.email, role: person.role },
      { steppedUp: false, personVersion: person.version },
    );
    return res.id;
  };
  const load = (id: string) => service.load(request(id), true);
  return { service, signIn, load, request, response };
}

describe('SqlPersonDirectory (embedded engine)', () => {
  beforeEach(async () => {
    await emptyPeople(engine);
    await engine.query('DELETE FROM person_session');
  });

  it('signs in with the right password only, and never a disabled or pending person', async () => {
    const { people, table } = setUp();
    await people.importUsers([
      await fileUser('ada@example.test', 'admin'),
      await fileUser('bob@example.test', 'finance'),
      await fileUser('cy@example.test', 'finance', { disabled: true }),
    ]);
    await people.invite('dee@example.test', 'finance', 'ada@example.test', 60 * MINUTE);
    const directory = await directoryOver(people, table);

    expect(
      await directory.authenticate('BOB@example.test', 'bob@example.test-password'),
    ).toMatchObject({ email: 'bob@example.test', role: 'finance', version: 1 });
    expect(await directory.authenticate('bob@example.test', 'wrong')).toBeUndefined();
    expect(
      await directory.authenticate('cy@example.test', 'cy@example.test-password'),
    ).toBeUndefined();
    expect(await directory.find('dee@example.test')).toMatchObject({ email: 'dee@example.test' });
    expect(await directory.authenticate('dee@example.test', '')).toBeUndefined();
    expect(await directory.authenticate('nobody@example.test', 'x')).toBeUndefined();
    expect(await directory.authenticate('not an email', 'x')).toBeUndefined();
    // Team alerts go to people who can sign in: not the disabled one, not the invitee.
    expect((await directory.emails()).sort()).toEqual(['ada@example.test', 'bob@example.test']);
    expect(await directory.counts()).toEqual({ users: 4, disabled: 1 });
  });

  it('a TOTP secret no configured key opens refuses that person with a clear 503, not a wrong code; others sign in', async () => {
    const { people, table, clock } = setUp();
    await people.importUsers([
      await fileUser('ada@example.test', 'admin'),
      await fileUser('bob@example.test', 'finance'),
    ]);
    expect((await (await directoryOver(people, table)).find('ada@example.test'))?.totpSecret).toBe(
      TOTP,
    );
    // The operator replaced TOTP_ENCRYPTION_KEY without keeping the old one as a previous key.
    const rekeyed = new PeopleStore(
      engine,
      clock,
      new TotpSecretBox({ current: OTHER_TOTP_KEY, previous: [] }),
    );
    const directory = await directoryOver(rekeyed, table);
    const refused = await directory
      .authenticate('ada@example.test', 'ada@example.test-password')
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(refused).toBeInstanceOf(AppError);
    // A 503 says when to ask again (docs/operations/limits.md), as every other does.
    expect(refused).toMatchObject({
      status: 503,
      code: 'second_factor_unavailable',
      retryAfterSeconds: 60,
    });
    expect((refused as Error).message).toMatch(/TOTP encryption key does not open it/);
    expect((refused as Error).cause).toBeInstanceOf(TotpSecretUnreadableError);
    expect(
      await directory.authenticate('bob@example.test', 'bob@example.test-password'),
    ).toMatchObject({ email: 'bob@example.test' });
    // Without any key at all, the same answer.
    const keyless = await directoryOver(new PeopleStore(engine, clock), table);
    await expect(keyless.find('ada@example.test')).rejects.toMatchObject({
      status: 503,
      code: 'second_factor_unavailable',
    });
  });

  it('a change of the person (disabling, a new role) ends their session at its next load', async () => {
    const { people, table, registry, clock } = setUp();
    await people.importUsers([
      await fileUser('ada@example.test', 'admin'),
      await fileUser('bob@example.test', 'finance'),
      await fileUser('eve@example.test', 'admin'),
    ]);
    const directory = await directoryOver(people, table);
    const { signIn, load } = sessionsFor(directory, registry, clock);

    const bob = await signIn('bob@example.test', 'bob@example.test-password');
    expect((await load(bob))?.record).toMatchObject({
      email: 'bob@example.test',
      personVersion: 1,
    });
    await people.disable('bob@example.test');
    expect(await load(bob)).toBeUndefined();
    await people.enable('bob@example.test');
    // Enabled again: the old session stays over (another version); a new sign-in works.
    expect(await load(bob)).toBeUndefined();
    expect(await load(await signIn('bob@example.test', 'bob@example.test-password'))).toBeDefined();

    const eve = await signIn('eve@example.test', 'eve@example.test-password');
    expect(await load(eve)).toBeDefined();
    await people.changeRole('eve@example.test', 'finance');
    expect(await load(eve)).toBeUndefined();

    const ada = await signIn('ada@example.test', 'ada@example.test-password');
    await people.importUsers([await fileUser('zed@example.test', 'admin')]);
    // Someone else's change leaves Ada's session as it was.
    expect(await load(ada)).toBeDefined();
  });

  it('lists open sessions, and a session ended by an admin ends at its next load', async () => {
    const { people, table, registry, clock } = setUp();
    await people.importUsers([
      await fileUser('ada@example.test', 'admin'),
      await fileUser('bob@example.test', 'finance'),
    ]);
    const directory = await directoryOver(people, table);
    const { signIn, load, service, request, response } = sessionsFor(directory, registry, clock);

    const first = await signIn('bob@example.test', 'bob@example.test-password');
    clock.advance(MINUTE);
    const second = await signIn('bob@example.test', 'bob@example.test-password');
    const listed = await registry.list('bob@example.test');
    expect(listed.map((s) => s.method)).toEqual(['password', 'password']);
    expect(listed[0]?.startedAt).toBe(START + MINUTE);
    expect(listed[1]?.startedAt).toBe(START);
    // The reference is not the cookie's id.
    expect(listed.map((s) => s.id)).not.toContain(first);
    expect((await people.find('bob@example.test'))?.lastSignIn).toEqual({
      at: new Date(START + MINUTE).toISOString(),
      method: 'password',
    });

    // Activity is written back (at most every 10 s) and shows as last seen.
    clock.advance(MINUTE);
    await load(first);
    const firstRef = (await load(first))?.record.ref as string;
    expect(
      (await registry.list('bob@example.test')).find((s) => s.id === firstRef)?.lastSeenAt,
    ).toBe(START + 2 * MINUTE);

    // Not someone else's session, and not twice.
    expect(await registry.end('ada@example.test', firstRef)).toBe(false);
    expect(await registry.end('bob@example.test', firstRef)).toBe(true);
    expect(await registry.end('bob@example.test', firstRef)).toBe(false);
    expect(await load(first)).toBeUndefined();
    expect(await load(second)).toBeDefined();
    expect((await registry.list('bob@example.test')).map((s) => s.id)).not.toContain(firstRef);

    // A step-up rotates the cookie's id; the session keeps its reference and stays listed.
    const req = request(second);
    const loaded = await service.load(req, true);
    const stepped = await service.recordStepUp(req, response() as unknown as Response);
    expect(stepped.record.ref).toBe(loaded?.record.ref);
    expect((await registry.list('bob@example.test')).map((s) => s.id)).toEqual([
      stepped.record.ref,
    ]);

    // Signing out marks it ended; end all counts only open sessions.
    const third = await signIn('bob@example.test', 'bob@example.test-password');
    await service.end(request(third), response() as unknown as Response);
    expect(await registry.list('bob@example.test')).toHaveLength(1);
    expect(await registry.endAll('bob@example.test')).toBe(1);
    expect(await registry.list('bob@example.test')).toEqual([]);
  });

  it('sessions past the idle limit are not listed', async () => {
    const { people, table, registry, clock } = setUp();
    await people.importUsers([await fileUser('bob@example.test', 'finance')]);
    const directory = await directoryOver(people, table);
    const { signIn, load } = sessionsFor(directory, registry, clock);
    const bob = await signIn('bob@example.test', 'bob@example.test-password');
    clock.advance(limits.idleMs);
    expect(await registry.list('bob@example.test')).toEqual([]);
    expect(await load(bob)).toBeUndefined();
    expect(await registry.endAll('bob@example.test')).toBe(0);
  });

  it('a provider identity nobody links becomes a person; a linked one signs in as that person', async () => {
    const { people, table } = setUp();
    await people.importUsers([
      await fileUser('ada@example.test', 'admin', { sso: { issuer: ISSUER, subject: 'sub-ada' } }),
    ]);
    const directory = await directoryOver(people, table);
    expect(await directory.findLinked(`${ISSUER}/`, 'sub-ada')).toMatchObject({
      email: 'ada@example.test',
    });
    const made = await directory.upsertSsoPerson({
      issuer: ISSUER,
      subject: 'sub-new',
      email: 'new@example.test',
      role: 'finance',
    });
    expect(made).toMatchObject({ email: 'new@example.test', role: 'finance', source: 'sso' });
    expect((await people.list()).map((p) => p.email)).toContain('new@example.test');
    // Another identity with a person's email does not become that person.
    expect(
      await directory.upsertSsoPerson({
        issuer: ISSUER,
        subject: 'sub-other',
        email: 'ada@example.test',
        role: 'admin',
      }),
    ).toBeUndefined();
  });

  it('single sign-on through the people store: who each identity signs in as', async () => {
    const { people, table } = setUp();
    await people.importUsers([
      await fileUser('ada@example.test', 'admin', { sso: { issuer: ISSUER, subject: 'sub-ada' } }),
      await fileUser('bob@example.test', 'finance'),
    ]);
    const directory = await directoryOver(people, table);
    const identity = (sub: string, email: string | undefined, role?: 'admin' | 'finance') => ({
      issuer: ISSUER,
      sub,
      email,
      role,
    });
    // Linked by an operator: that person, with the role set in Card Console, whatever the claims.
    expect(await whoSignedIn(identity('sub-ada', undefined, 'finance'), directory)).toEqual({
      email: 'ada@example.test',
      role: 'admin',
      linked: true,
      version: 1,
    });
    // Nobody's: becomes a person, then signs in as them; the role follows the claims.
    expect(
      await whoSignedIn(identity('sub-new', 'new@example.test', 'finance'), directory),
    ).toEqual({ email: 'new@example.test', role: 'finance', linked: true, version: 1 });
    expect(await whoSignedIn(identity('sub-new', 'new@example.test', 'admin'), directory)).toEqual({
      email: 'new@example.test',
      role: 'admin',
      linked: true,
      version: 2,
    });
    // No mapped role any more: no access, and the person keeps the role they had.
    expect(await whoSignedIn(identity('sub-new', 'new@example.test'), directory)).toMatchObject({
      noRole: true,
    });
    // Never a person of Card Console by email alone.
    expect(await whoSignedIn(identity('sub-x', 'bob@example.test', 'admin'), directory)).toEqual({
      refused:
        'bob@example.test is a Card Console account not linked to this provider subject (sub-x); pnpm users link links it',
    });
    await people.disable('new@example.test');
    expect(await whoSignedIn(identity('sub-new', 'new@example.test', 'admin'), directory)).toEqual({
      refused: 'the linked account is disabled in Card Console',
      actor: 'new@example.test',
    });
  });
});
