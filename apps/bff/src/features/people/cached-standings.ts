// Each signed-in request's check of its person (sql-person-directory.ts) reads the person's
// standing through a short cache, on one process and on replicas sharing PostgreSQL: a request
// asks the database at most once per FRESH_MS per session, and while it is unavailable the last
// good answer stands for up to STALE_MS (platform/sessions/outage-read-cache.ts). A person
// disabled, re-roled or removed, or a session ended, on another replica is refused here within
// FRESH_MS; here, at once (so one process, which makes every change itself, is never stale).
import type { Clock } from '../../core/clock';
import {
  OutageReadCache,
  type OutageReadCacheOptions,
} from '../../platform/sessions/outage-read-cache';
import type { PersonSessionTable, SessionStanding } from './person-session-table';
import type { PersonSessions } from './person-sessions';

/** What the check of a session reads. */
export type StandingSource = Pick<PersonSessionTable, 'standing'>;

const keyOf = (email: string, ref: string | undefined) => `${email}\n${ref ?? ''}`;

export function cachedStandings(
  table: () => Promise<StandingSource>,
  clock: Clock,
  options: Omit<OutageReadCacheOptions, 'keepMisses'> = {},
) {
  // "No such person" is kept too: only a session's own email and reference are ever asked.
  const cache = new OutageReadCache<SessionStanding>(clock, { ...options, keepMisses: true });
  const source: StandingSource = {
    standing: (email, ref) =>
      cache.read(keyOf(email, ref), async () => (await table()).standing(email, ref)),
  };
  const forgetPerson = (email: string) => {
    const prefix = keyOf(email.trim().toLowerCase(), '');
    cache.forget((key) => key.startsWith(prefix));
  };
  return {
    /** For SqlPersonDirectory's `sessions`. */
    table: async () => source,
    /**
     * `sessions` whose ends forget the person's standings here, whether or not the end was
     * saved: every change of a person that ends their sessions (disable, role, removal) and
     * an admin's end of one go through these.
     */
    forgetting<T extends PersonSessions>(sessions: T): T {
      return {
        ...sessions,
        async end(email: string, id: string, audited?: Parameters<PersonSessions['end']>[2]) {
          try {
            return await sessions.end(email, id, audited);
          } finally {
            forgetPerson(email);
          }
        },
        async endAll(email: string, audited?: Parameters<PersonSessions['endAll']>[1]) {
          try {
            return await sessions.endAll(email, audited);
          } finally {
            forgetPerson(email);
          }
        },
      };
    },
  };
}
