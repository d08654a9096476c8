-- Two stores the replicas shared through Redis, kept in PostgreSQL instead (issue 44).
--
-- Second factors (platform/passkeys/sql-factor-store.ts): each person with a passkey or with
-- TOTP turned off has a `person_factors` row, which every conditional change locks first, so
-- two replicas deciding at once for one person (the eleventh passkey, the last passkey while
-- TOTP is off) decide one after the other. A credential id is enrolled once across everyone
-- (its primary key). Nothing here signs anyone in: a WebAuthn public key only checks a
-- signature, and the TOTP secret stays with the person. Durable: no expiry.
--
-- The Overview's per-day aggregates (platform/insights/sql-day-aggregate-store.ts): a cache of
-- what the card service's days add up to, per sub account, time zone and `version` of what a
-- day holds. Days counted by an earlier definition of money keep their version, are never read
-- again and expire; replicas of two builds side by side each keep their own. A series expires
-- a while after its last write (by the database's clock); expired series are deleted by the
-- writes that follow.

-- Up Migration

CREATE TABLE person_factors (
  email text COLLATE "C" PRIMARY KEY CHECK (email <> '' AND email = lower(email)),
  totp_disabled boolean NOT NULL DEFAULT false
);

CREATE TABLE person_passkey (
  id text COLLATE "C" PRIMARY KEY CHECK (id ~ '^[A-Za-z0-9_-]+$'),
  email text COLLATE "C" NOT NULL REFERENCES person_factors (email),
  public_key text NOT NULL CHECK (public_key ~ '^[A-Za-z0-9_-]+$'),
  -- Whole numbers JavaScript holds exactly (unix ms for the times).
  counter bigint NOT NULL CHECK (counter BETWEEN 0 AND 9007199254740991),
  -- Null when none: an empty list means the same.
  transports text[] CHECK (cardinality(transports) > 0 AND array_position(transports, NULL) IS NULL),
  name text NOT NULL,
  created_at bigint NOT NULL CHECK (created_at BETWEEN 0 AND 9007199254740991),
  last_used_at bigint CHECK (last_used_at BETWEEN 0 AND 9007199254740991)
);
CREATE INDEX person_passkey_email ON person_passkey (email);

CREATE TABLE insights_day_series (
  version smallint NOT NULL CHECK (version > 0),
  sub_account_id text COLLATE "C" NOT NULL CHECK (sub_account_id <> ''),
  time_zone text COLLATE "C" NOT NULL CHECK (time_zone <> ''),
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (version, sub_account_id, time_zone)
);
CREATE INDEX insights_day_series_expiry ON insights_day_series (expires_at);

CREATE TABLE insights_day (
  version smallint NOT NULL,
  sub_account_id text COLLATE "C" NOT NULL,
  time_zone text COLLATE "C" NOT NULL,
  day text COLLATE "C" NOT NULL CHECK (day ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$'),
  -- The day's JSON as written, checked when read (a value that is not a day is walked again).
  -- Text, not jsonb, which refuses a \u0000 inside a merchant's name.
  aggregate text NOT NULL CHECK (aggregate <> ''),
  PRIMARY KEY (version, sub_account_id, time_zone, day),
  FOREIGN KEY (version, sub_account_id, time_zone)
    REFERENCES insights_day_series (version, sub_account_id, time_zone) ON DELETE CASCADE
);

GRANT SELECT, INSERT, UPDATE, DELETE
  ON person_factors, person_passkey, insights_day_series, insights_day
  TO card_console_index_writer;

-- Down Migration

DROP TABLE insights_day;
DROP TABLE insights_day_series;
DROP TABLE person_passkey;
DROP TABLE person_factors;
