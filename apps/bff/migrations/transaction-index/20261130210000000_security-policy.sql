-- The security policy admins set (issue 48, decision 0120): whether everyone must have a second
-- factor. One row at most, written by an admin's change; while there is none the policy is off
-- (features/security-policy), so nothing changes until an admin turns it on. `updated_at` of a
-- policy turned on is when it started: sessions signed in before it are left as they were.

-- Up Migration

CREATE TABLE security_policy (
  -- Always true: the primary key and this check keep the table to one row.
  id boolean PRIMARY KEY DEFAULT true CHECK (id),
  require_second_factor boolean NOT NULL,
  updated_by text NOT NULL,
  updated_at timestamptz NOT NULL
);

GRANT SELECT, INSERT, UPDATE ON security_policy TO card_console_index_writer;

-- Down Migration

DROP TABLE security_policy;
