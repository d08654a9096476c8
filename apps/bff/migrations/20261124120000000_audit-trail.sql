-- The audit trail (apps/bff/src/platform/audit/postgres-audit-store.ts). Applied by the schema
-- owner through `pnpm migrate` (DATABASE_MIGRATION_URL); the BFF's own login only holds the
-- writer role.
-- No down migration on purpose: no tool may drop the trail.

-- Up Migration

-- NOLOGIN: a person or the BFF logs in as a role of its own that is granted this one.
DO $$
BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'card_console_audit_writer') THEN
    CREATE ROLE card_console_audit_writer NOLOGIN;
  END IF;
END
$$;

-- One row per record; NULL is a field the record does not have. `id` is the record's place in
-- the chain (no sequence: the appender takes the head's id + 1 under a lock, so no gaps).
CREATE TABLE audit_record (
  id bigint PRIMARY KEY CHECK (id > 0),
  at timestamptz NOT NULL,
  actor text NOT NULL,
  role text,
  action text NOT NULL,
  outcome text NOT NULL,
  target text,
  card_id text,
  last4 text,
  sub_account_id text,
  before_values jsonb,
  after_values jsonb,
  reason text,
  detail text,
  request_id text NOT NULL,
  prev_hash text NOT NULL CHECK (prev_hash ~ '^[0-9a-f]{64}$'),
  hash text NOT NULL CHECK (hash ~ '^[0-9a-f]{64}$')
);

-- The audit screen's filters, each newest first by id (a backward scan of (column, id)); a
-- time range is turned into an id range through (at, id), since `at` never decreases with id.
CREATE INDEX audit_record_at ON audit_record (at, id);
CREATE INDEX audit_record_actor ON audit_record (actor, id);
CREATE INDEX audit_record_action ON audit_record (action, id);
CREATE INDEX audit_record_outcome ON audit_record (outcome, id);
-- Rare outcomes of one action (denied reveals) would otherwise be a long filtered scan.
CREATE INDEX audit_record_action_outcome ON audit_record (action, outcome, id);
CREATE INDEX audit_record_card ON audit_record (card_id, id) WHERE card_id IS NOT NULL;
-- One person's records of a kind: a busy person has tens of thousands of records, and a
-- combination they have none of (a finance person's reveals) would otherwise read them all.
CREATE INDEX audit_record_actor_action ON audit_record (actor, action, id);
CREATE INDEX audit_record_actor_outcome ON audit_record (actor, outcome, id);
CREATE INDEX audit_record_actor_card ON audit_record (actor, card_id, id) WHERE card_id IS NOT NULL;
-- A card's records of a kind (its limit changes): a card's own records are few, but a kind's
-- are many, and the planner may walk the kind's index looking for the card's.
CREATE INDEX audit_record_card_action ON audit_record (card_id, action, id) WHERE card_id IS NOT NULL;

-- Refused to every role while the trigger is on. The table's owner (and a superuser) can turn
-- it off: that is why no replica holds the owner's login, and the hash chain (with a head kept
-- outside the database) is what shows a change made so.
CREATE FUNCTION audit_record_refuse_change() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'the audit trail is append-only: % of audit_record is refused', TG_OP
    USING ERRCODE = 'insufficient_privilege';
END
$$;

CREATE TRIGGER audit_record_append_only
  BEFORE UPDATE OR DELETE OR TRUNCATE ON audit_record
  FOR EACH STATEMENT EXECUTE FUNCTION audit_record_refuse_change();

REVOKE ALL ON audit_record FROM PUBLIC;
GRANT SELECT, INSERT ON audit_record TO card_console_audit_writer;
-- So that start-up, as the writer, can check the schema is current.
GRANT SELECT ON card_console_migrations TO card_console_audit_writer;
