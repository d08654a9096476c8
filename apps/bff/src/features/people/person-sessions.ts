// The sessions a person has open, as admins see and end them on the People screen. A session is
// named by a stable random reference (shown to admins, not secret, not the session store's key),
// so ending one never needs the cookie of the person who holds it.
import type { BeforeCommit } from '../../platform/audit/audited-change';

/** How a session was started. */
export type SessionMethod = 'password' | 'passkey' | 'sso';

/** One open session of a person: not ended, and not past the idle or absolute limits. */
export interface PersonSession {
  id: string;
  method: SessionMethod;
  startedAt: number;
  lastSeenAt: number;
}

export interface PersonSessions {
  /** The person's open sessions, newest first. */
  list(email: string): Promise<PersonSession[]>;
  /**
   * Ends one of the person's sessions; false when it is not theirs or already ended. `audited`
   * (platform/audit/audited-change.ts) runs before the end is saved, only when one is.
   */
  end(email: string, id: string, audited?: BeforeCommit<true>): Promise<boolean>;
  /** Ends every open session of the person; how many were ended (`audited` as for `end`). */
  endAll(email: string, audited?: BeforeCommit<number>): Promise<number>;
}
