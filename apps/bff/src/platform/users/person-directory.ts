// Who may sign in, as sign-in, sessions, single sign-on and second factors ask it: the users
// file held in memory (`UserDirectory`, tests and file-only installs) or the people store the
// replicas share (features/people). Answers may come at once or after a query, so callers
// always await them.
import type { Role } from '@card-console/shared/api/meta';

type Maybe<T> = T | Promise<T>;

/** A person as the directory knows them: credentials for signing in, never sent to a browser. */
export interface DirectoryPerson {
  email: string;
  role: Role;
  /** Absent for people who sign in only through single sign-on, or who have not signed up yet. */
  passwordHash?: string | undefined;
  totpSecret?: string | undefined;
  disabled?: boolean | undefined;
  /** The single sign-on identity the person is linked to. */
  sso?: { issuer: string; subject: string } | undefined;
  /** Where the person came from; `sso` people take their role from the provider's claims. */
  source?: 'file' | 'invited' | 'sso' | undefined;
  /** Goes up with every change of the person; a session started at another version ends. */
  version?: number | undefined;
}

/** What a session records of who it is, as far as the directory judges it. */
export interface SessionPerson {
  email: string;
  role: Role;
  method?: 'password' | 'passkey' | 'sso' | undefined;
  sso?: { sub: string; linked?: boolean | undefined } | undefined;
  /** The person's version when the session started (people store only). */
  personVersion?: number | undefined;
  /** The session's stable reference, which an admin may end (people store only). */
  ref?: string | undefined;
}

/** A single sign-on identity the provider vouched for, with the role its claims map to. */
export interface ProviderPerson {
  issuer: string;
  subject: string;
  email: string;
  role: Role;
}

export interface PersonDirectory {
  find(email: string): Maybe<DirectoryPerson | undefined>;
  /** The person linked to this provider's subject, disabled or not. */
  findLinked(issuer: string, subject: string): Maybe<DirectoryPerson | undefined>;
  /** The person when the password matches and they may sign in; always one hash's work. */
  authenticate(email: string, password: string): Promise<DirectoryPerson | undefined>;
  /** Whether a session may go on (checked at every request that carries it). */
  allowsSession(session: SessionPerson): Maybe<boolean>;
  /** Everyone who may sign in, by email: who a team alert goes to. */
  emails(): Maybe<string[]>;
  counts(): Maybe<{ users: number; disabled: number }>;
  /**
   * People store only: the person a provider identity nobody links to becomes (or, for a person
   * who came that way, is updated to), or undefined when someone else already has that email.
   * Without it, such an identity signs in without being a person (the users file's way).
   */
  upsertSsoPerson?(identity: ProviderPerson): Promise<DirectoryPerson | undefined>;
}
