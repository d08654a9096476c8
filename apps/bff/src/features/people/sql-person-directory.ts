// Who may sign in, from the people store the replicas share: the PersonDirectory that sign-in,
// sessions, single sign-on and second factors use in production and the demo. A change made on
// one replica (disabling, a new role, a removal, an ended session) ends the person's session
// at its next request on any replica: each request reads the person's row and its session's.
import { secondFactorUnavailable } from '../../platform/security/totp-secret-box';
import {
  demoScrypt,
  hashPassword,
  productionScrypt,
  verifyPassword,
} from '../../platform/users/password-hash';
import type {
  DirectoryPerson,
  PersonDirectory,
  ProviderPerson,
  SessionPerson,
} from '../../platform/users/person-directory';
import { InvalidPersonInputError, SsoEmailTakenError } from './people-errors';
import type { PeopleStore } from './people-store';
import type { PersonSessionTable } from './person-session-table';

export interface SqlPersonDirectoryDeps {
  people: () => Promise<PeopleStore>;
  /** The table, or the same read through a short cache (cached-standings.ts). */
  sessions: () => Promise<Pick<PersonSessionTable, 'standing'>>;
  /**
   * Links kept outside the store, by provider issuer and subject to an email: the demo accounts'
   * to the demo provider's people, whose issuer (a loopback port) changes with every start.
   */
  linkedElsewhere?: (issuer: string, subject: string) => string | undefined;
}

/**
 * Input no person could have (a malformed email or issuer) finds nobody, as an unknown one. A
 * person whose TOTP secret no configured key opens is refused with a clear answer (503), the
 * cause in the log: their second factor cannot be checked, and a wrong code is not what it is.
 */
async function orNobody<T>(work: () => Promise<T | undefined>): Promise<T | undefined> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof InvalidPersonInputError) return undefined;
    throw secondFactorUnavailable(error) ?? error;
  }
}

export class SqlPersonDirectory implements PersonDirectory {
  private constructor(
    private readonly deps: SqlPersonDirectoryDeps,
    /** Verified against for unknown or pending people, so timing doesn't tell who exists. */
    private readonly dummyHash: string,
  ) {}

  /** `hashing`: the demo's cheaper scrypt cost, or production's (the people's own hashes'). */
  static async create(
    deps: SqlPersonDirectoryDeps,
    hashing: 'production' | 'demo' = 'production',
  ): Promise<SqlPersonDirectory> {
    const params = hashing === 'demo' ? demoScrypt : productionScrypt;
    return new SqlPersonDirectory(deps, await hashPassword('not-a-password', params));
  }

  async find(email: string): Promise<DirectoryPerson | undefined> {
    const people = await this.deps.people();
    return orNobody(() => people.find(email));
  }

  async findLinked(issuer: string, subject: string): Promise<DirectoryPerson | undefined> {
    const people = await this.deps.people();
    const linked = await orNobody(() => people.findBySso(issuer, subject));
    if (linked) return linked;
    const email = this.deps.linkedElsewhere?.(issuer, subject);
    return email === undefined ? undefined : this.find(email);
  }

  /**
   * The person when the password matches and they may sign in: not disabled, and signed up
   * (an invited person has no password yet). Always one hash's worth of work.
   */
  async authenticate(email: string, password: string): Promise<DirectoryPerson | undefined> {
    const person = await this.find(email);
    const ok = await verifyPassword(password, person?.passwordHash ?? this.dummyHash);
    return person?.passwordHash !== undefined && ok && !person.disabled ? person : undefined;
  }

  /**
   * Whether a session may go on: its person still exists, is not disabled, has the role the
   * session has, is at the version the session started at (any change of the person ends it),
   * and no one ended this session. Sessions started before the people store (no version or
   * reference) are judged by what they have, as the users file judged them.
   */
  async allowsSession(session: SessionPerson): Promise<boolean> {
    const table = await this.deps.sessions();
    let standing: Awaited<ReturnType<PersonSessionTable['standing']>>;
    try {
      standing = await table.standing(session.email.toLowerCase(), session.ref);
    } catch (error) {
      if (error instanceof InvalidPersonInputError) return false;
      throw error;
    }
    const sso = session.method === 'sso';
    if (sso && !session.sso?.linked && session.personVersion === undefined) {
      // Signed in through the provider without being a person (before the people store).
      return standing === undefined;
    }
    if (!standing || standing.disabled || standing.ended || standing.role !== session.role) {
      return false;
    }
    if (session.personVersion !== undefined && standing.version !== session.personVersion) {
      return false;
    }
    // A change of the person's link changes their version; without one, the link must hold.
    return !sso || session.personVersion !== undefined || standing.ssoSubject === session.sso?.sub;
  }

  /** Everyone who may sign in (not disabled, signed up): who a team alert goes to. */
  async emails(): Promise<string[]> {
    const people = await (await this.deps.people()).list();
    return people.filter((p) => !p.disabled && !p.pending).map((p) => p.email);
  }

  async counts(): Promise<{ users: number; disabled: number }> {
    const people = await (await this.deps.people()).list();
    return { users: people.length, disabled: people.filter((p) => p.disabled).length };
  }

  /** The person an unlinked provider identity becomes; undefined when the email is taken. */
  async upsertSsoPerson(identity: ProviderPerson): Promise<DirectoryPerson | undefined> {
    const people = await this.deps.people();
    try {
      return await people.upsertSsoPerson(identity);
    } catch (error) {
      if (error instanceof SsoEmailTakenError || error instanceof InvalidPersonInputError) {
        return undefined;
      }
      throw error;
    }
  }
}
