-- Each person's open sessions (issue 32), so an admin can see them and end one or all on the
-- People screen, whichever replica started them. The session itself stays in the session
-- store (memory or Redis, keyed by a hash of the cookie id); this row is named by the
-- session's own random reference, which is not secret and opens nothing. A session ended here
-- is refused at its next request on any replica. Rows are short-lived bookkeeping: a row
-- ended or past the session limits is only history, and the down migration drops the table.

-- Up Migration

CREATE TABLE person_session (
  ref text COLLATE "C" PRIMARY KEY CHECK (ref <> ''),
  email text COLLATE "C" NOT NULL CHECK (email = lower(email)),
  method text NOT NULL CHECK (method IN ('password', 'passkey', 'sso')),
  -- The person's version at sign-in: once it changes the session is over, listed or not.
  person_version integer,
  started_at timestamptz NOT NULL,
  last_seen_at timestamptz NOT NULL,
  ended_at timestamptz
);
-- A person's open sessions, read by the People screen and ended all at once.
CREATE INDEX person_session_open ON person_session (email, started_at) WHERE ended_at IS NULL;

GRANT SELECT, INSERT, UPDATE, DELETE ON person_session TO card_console_index_writer;

-- Down Migration

DROP TABLE person_session;
