// The sessions a person has open, as admins see and end them on the People screen. A session is
// named by a stable random reference (shown to admins, not secret, not the session store's key),
// so ending one never needs the cookie of the person who holds it.

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
  /** Ends one of the person's sessions; false when it is not theirs or already ended. */
  end(email: string, id: string): Promise<boolean>;
  /** Ends every open session of the person; how many were ended. */
  endAll(email: string): Promise<number>;
}
