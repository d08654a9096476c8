-- Sessions, one-time values (passkey challenges, pending single sign-ons) and the second-factor
-- steps already used, shared by every replica in PostgreSQL (issue 44) as they were in Redis.
-- Each row is named by the SHA-256 (hex) of the store's key, so a key of any length or character
-- fits an index entry and the table never holds the key itself. Expiry is on the database's
-- clock (now()), so the replicas' clocks do not matter; a row past `expires_at` is read as
-- absent, and the stores delete expired rows as they write (platform/sessions/sql-session-store.ts,
-- platform/security/sql-one-time-store.ts, platform/security/sql-used-code-ledger.ts).

-- Up Migration

-- One row per signed-in session: the record the session service keeps, as JSON.
CREATE TABLE session_record (
  key_hash text COLLATE "C" PRIMARY KEY CHECK (key_hash ~ '^[0-9a-f]{64}$'),
  record jsonb NOT NULL CHECK (jsonb_typeof(record) = 'object'),
  expires_at timestamptz NOT NULL
);
CREATE INDEX session_record_expiry ON session_record (expires_at);

-- Values good for one use, bounded per kind (a flood of one never evicts the other's).
CREATE TABLE one_time_value (
  kind text COLLATE "C" NOT NULL CHECK (kind IN ('challenges', 'ssoPending')),
  key_hash text COLLATE "C" NOT NULL CHECK (key_hash ~ '^[0-9a-f]{64}$'),
  value text NOT NULL,
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (kind, key_hash)
);
-- Expired values and, at the bound, the soonest-expiring live ones go first.
CREATE INDEX one_time_value_expiry ON one_time_value (kind, expires_at);

-- The last TOTP time step each person used: a code is good once, and only moves forward.
CREATE TABLE used_totp_step (
  email_hash text COLLATE "C" PRIMARY KEY CHECK (email_hash ~ '^[0-9a-f]{64}$'),
  time_step bigint NOT NULL CHECK (time_step >= 0),
  expires_at timestamptz NOT NULL
);
CREATE INDEX used_totp_step_expiry ON used_totp_step (expires_at);

GRANT SELECT, INSERT, UPDATE, DELETE ON session_record, one_time_value, used_totp_step
  TO card_console_index_writer;

-- Down Migration

-- Everyone signs in again; challenges and pending sign-ins in flight start over.
DROP TABLE used_totp_step;
DROP TABLE one_time_value;
DROP TABLE session_record;
