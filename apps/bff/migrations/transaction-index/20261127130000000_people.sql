-- People in the product (issue 32): who may sign in, with which role and credentials, kept in
-- the SQL store the replicas share (the transaction index's engine) rather than in a users file
-- each replica reads. features/people/people-store.ts is the only writer. Like the notes, these
-- rows are people's work no sync can rebuild: the down migration refuses to drop them.

-- Up Migration

-- One row per person, keyed by the lower-cased email. `password_hash` (scrypt, encoded) is empty
-- until an invitation is accepted, and stays empty for people who sign in only through single
-- sign-on. `version` goes up by one with every change of who they are or what they may do
-- (role, disabling, credentials, link): a session records it and ends when it differs. Recording
-- a sign-in is not such a change and leaves it as it is.
CREATE TABLE person (
  email text COLLATE "C" PRIMARY KEY CHECK (email = lower(email) AND email <> ''),
  role text NOT NULL CHECK (role IN ('admin', 'finance')),
  password_hash text,
  totp_secret text,
  disabled boolean NOT NULL DEFAULT false,
  sso_issuer text COLLATE "C",
  sso_subject text COLLATE "C",
  source text NOT NULL CHECK (source IN ('file', 'invited', 'sso')),
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  last_sign_in_at timestamptz,
  last_sign_in_method text CHECK (last_sign_in_method IN ('password', 'passkey', 'sso')),
  version integer NOT NULL DEFAULT 1 CHECK (version > 0),
  CHECK ((sso_issuer IS NULL) = (sso_subject IS NULL)),
  CHECK ((last_sign_in_at IS NULL) = (last_sign_in_method IS NULL))
);
-- One person per single sign-on identity.
CREATE UNIQUE INDEX person_sso ON person (sso_issuer, sso_subject) WHERE sso_issuer IS NOT NULL;
-- The admins, read (and locked) by every change that could leave the product without one.
CREATE INDEX person_admin ON person (email) WHERE role = 'admin';

-- Every email the users file brought in once. An import adds only people never imported before,
-- so a person removed or changed in the product is not brought back by the next start-up.
CREATE TABLE person_import (
  email text COLLATE "C" PRIMARY KEY,
  imported_at timestamptz NOT NULL
);

-- Invitations: only the SHA-256 of the token (hex) is kept; the token itself is shown once to
-- whoever invites. Single use (`accepted_at`); a newer invitation of the same email or the
-- person's removal revokes the ones not yet accepted. At most one is open per email.
CREATE TABLE person_invitation (
  token_sha256 text COLLATE "C" PRIMARY KEY CHECK (token_sha256 ~ '^[0-9a-f]{64}$'),
  email text COLLATE "C" NOT NULL CHECK (email = lower(email)),
  role text NOT NULL CHECK (role IN ('admin', 'finance')),
  invited_by text NOT NULL,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL CHECK (expires_at > created_at),
  accepted_at timestamptz,
  revoked_at timestamptz,
  CHECK (accepted_at IS NULL OR revoked_at IS NULL)
);
CREATE UNIQUE INDEX person_invitation_open ON person_invitation (email)
  WHERE accepted_at IS NULL AND revoked_at IS NULL;

GRANT SELECT, INSERT, UPDATE, DELETE ON person TO card_console_index_writer;
GRANT SELECT, INSERT ON person_import TO card_console_index_writer;
GRANT SELECT, INSERT, UPDATE ON person_invitation TO card_console_index_writer;

-- Down Migration

DO $$
BEGIN
  IF EXISTS (SELECT FROM person) OR EXISTS (SELECT FROM person_invitation) THEN
    RAISE EXCEPTION 'people and invitations are kept here: export and remove them before migrating down';
  END IF;
END
$$;
DROP TABLE person_invitation;
DROP TABLE person_import;
DROP TABLE person;
