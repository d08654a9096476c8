// Sessions as the People screen sees and ends them (PersonSessions), and the session service's
// registry that keeps that view current (SessionRegistry): both over the person_session table
// the replicas share. A session an admin ends here is refused at its next request, on any
// replica, by the people directory's check (sql-person-directory.ts).
import type { Clock } from '../../core/clock';
import type { SessionRegistry } from '../../platform/sessions/session-service';
import { PersonNotFoundError } from './people-errors';
import type { PeopleStore } from './people-store';
import { emailOf } from './person';
import type { Limits, PersonSessionTable } from './person-session-table';
import type { PersonSessions } from './person-sessions';

export interface SqlPersonSessionsDeps {
  table: () => Promise<PersonSessionTable>;
  people: () => Promise<PeopleStore>;
  clock: Clock;
  /** The session limits (config.session): a session past either is not open. */
  limits: Limits;
}

export function sqlPersonSessions(deps: SqlPersonSessionsDeps): PersonSessions & SessionRegistry {
  const { clock, limits } = deps;
  return {
    async list(email) {
      return (await deps.table()).open(emailOf(email), clock.now(), limits);
    },
    async end(email, id, audited) {
      if (typeof id !== 'string' || id === '') return false;
      const ended = await (await deps.table()).endOpen(
        emailOf(email),
        id,
        clock.now(),
        limits,
        audited && ((n, tx) => (n > 0 ? audited(true, tx) : Promise.resolve())),
      );
      return ended > 0;
    },
    async endAll(email, audited) {
      return (await deps.table()).endOpen(emailOf(email), undefined, clock.now(), limits, audited);
    },

    async started(session) {
      const email = emailOf(session.email);
      await (await deps.table()).insert({ ...session, email, absoluteMs: limits.absoluteMs });
      // When and how the person last signed in, for the People screen. Not a change of the
      // person (their version stays); someone signing in without being a person records none.
      try {
        await (await deps.people()).recordSignIn(email, session.method);
      } catch (error) {
        if (!(error instanceof PersonNotFoundError)) throw error;
      }
    },
    async seen(ref, at) {
      await (await deps.table()).touch(ref, at);
    },
    async ended(ref, at) {
      await (await deps.table()).end(ref, at);
    },
  };
}
