-- Card owners and teams (issue 49, decision 0126): the card service has neither, so a card's
-- owner and team are Card Console's. One row per card given either. An owner is a name, and an
-- email when alerts should reach them (a person's in People, or a cardholder's who does not sign
-- in); owners and teams are matched by key (the name trimmed, spaces folded, lower case), and
-- every card of one key shows the same spelling (the first given, kept under the change's lock).
-- Read by every list, total and alert raise in the same database, so a change is seen by every
-- replica at its next request. Alert rules may also go to the card's owner.

-- Up Migration

CREATE TABLE card_owner (
  card_id text PRIMARY KEY CHECK (card_id <> ''),
  owner_name text CHECK (owner_name <> ''),
  owner_key text CHECK (owner_key <> ''),
  owner_email text CHECK (owner_email = lower(owner_email) AND owner_email <> ''),
  team_name text CHECK (team_name <> ''),
  team_key text CHECK (team_key <> ''),
  updated_by text NOT NULL,
  updated_at timestamptz NOT NULL,
  CHECK ((owner_name IS NULL) = (owner_key IS NULL)),
  CHECK ((team_name IS NULL) = (team_key IS NULL)),
  CHECK (owner_email IS NULL OR owner_name IS NOT NULL),
  CHECK (owner_key IS NOT NULL OR team_key IS NOT NULL)
);
CREATE INDEX card_owner_owner_key ON card_owner (owner_key);
CREATE INDEX card_owner_team_key ON card_owner (team_key);

GRANT SELECT, INSERT, UPDATE, DELETE ON card_owner TO card_console_index_writer;

ALTER TABLE alert_rule ADD COLUMN to_card_owner boolean NOT NULL DEFAULT false;

-- Down Migration

ALTER TABLE alert_rule DROP COLUMN to_card_owner;
DROP TABLE card_owner;
