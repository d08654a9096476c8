-- Alerts (issue 32): rules people set for themselves or admins set for the team, the alerts
-- they raised, and each recipient's in-app inbox. Beside the index, in the same store, shared by
-- replicas: features/alerts/alert-store.ts is the only writer. An alert is raised once per
-- idempotency key whatever the number of replicas and restarts (the key's unique index decides).
-- Rules are people's work no sync can rebuild: the down migration refuses to drop them.

-- Up Migration

-- One row per rule. `owner_email` is the person the rule is for (lower-cased), NULL for a team
-- rule (admins set it; the recipients are given when an alert is raised). What a kind needs:
-- an amount of cents (amount_above, balance_below), a share of the card's utilisation limit in
-- percent (utilisation_above), nothing more (declined, new_category). `sub_account_id` and
-- `card_id` narrow a rule when set. `digest`: email once a day rather than at each alert.
-- `version` goes up by one with every change; a change names the version it was made on.
CREATE TABLE alert_rule (
  id text COLLATE "C" PRIMARY KEY,
  owner_email text COLLATE "C" CHECK (owner_email = lower(owner_email) AND owner_email <> ''),
  name text NOT NULL CHECK (name <> ''),
  kind text NOT NULL
    CHECK (kind IN ('declined', 'amount_above', 'utilisation_above', 'balance_below', 'new_category')),
  amount_cents bigint CHECK (amount_cents > 0),
  share_percent integer CHECK (share_percent BETWEEN 1 AND 100),
  sub_account_id text COLLATE "C",
  card_id text COLLATE "C",
  channel_inbox boolean NOT NULL,
  channel_email boolean NOT NULL,
  webhook_target_id text COLLATE "C",
  digest boolean NOT NULL DEFAULT false,
  enabled boolean NOT NULL DEFAULT true,
  created_by text NOT NULL,
  created_at timestamptz NOT NULL,
  updated_by text NOT NULL,
  updated_at timestamptz NOT NULL,
  version integer NOT NULL DEFAULT 1 CHECK (version > 0),
  CHECK ((amount_cents IS NOT NULL) = (kind IN ('amount_above', 'balance_below'))),
  CHECK ((share_percent IS NOT NULL) = (kind = 'utilisation_above')),
  -- A balance belongs to a sub account, not to a card.
  CHECK (kind <> 'balance_below' OR card_id IS NULL),
  CHECK (channel_inbox OR channel_email OR webhook_target_id IS NOT NULL),
  CHECK (NOT digest OR channel_email)
);
CREATE INDEX alert_rule_owner ON alert_rule (owner_email, created_at);
CREATE INDEX alert_rule_enabled ON alert_rule (kind) WHERE enabled;

-- One row per alert raised. The idempotency key says what it is about, so it is raised once:
-- `<rule>:<transaction>` for the transaction kinds, `<rule>:<card>:<window's first day>` for
-- utilisation, `<rule>:<sub account>:<UTC day>` for a balance. The payload is what a person is
-- shown (rule name, amounts, masked free text, a card's last four digits): never a card number.
-- A deleted rule leaves its alerts (and people's inboxes) as they were.
CREATE TABLE alert (
  id text COLLATE "C" PRIMARY KEY,
  rule_id text COLLATE "C" REFERENCES alert_rule (id) ON DELETE SET NULL,
  idempotency_key text COLLATE "C" NOT NULL UNIQUE CHECK (idempotency_key <> ''),
  raised_at timestamptz NOT NULL,
  payload jsonb NOT NULL
);
CREATE INDEX alert_rule_raised ON alert (rule_id, raised_at);

-- Each recipient's copy of an alert in the in-app inbox. `raised_at` is the alert's, kept here
-- so a page of one person's inbox (newest first) and the unread count read this table only.
CREATE TABLE alert_inbox (
  alert_id text COLLATE "C" NOT NULL REFERENCES alert (id) ON DELETE CASCADE,
  recipient_email text COLLATE "C" NOT NULL
    CHECK (recipient_email = lower(recipient_email) AND recipient_email <> ''),
  raised_at timestamptz NOT NULL,
  read_at timestamptz,
  PRIMARY KEY (alert_id, recipient_email)
);
CREATE INDEX alert_inbox_recipient ON alert_inbox (recipient_email, raised_at DESC, alert_id DESC);
CREATE INDEX alert_inbox_unread ON alert_inbox (recipient_email) WHERE read_at IS NULL;

GRANT SELECT, INSERT, UPDATE, DELETE ON alert_rule TO card_console_index_writer;
GRANT SELECT, INSERT ON alert TO card_console_index_writer;
GRANT SELECT, INSERT, UPDATE ON alert_inbox TO card_console_index_writer;

-- Down Migration

DO $$
BEGIN
  IF EXISTS (SELECT FROM alert_rule) OR EXISTS (SELECT FROM alert) THEN
    RAISE EXCEPTION 'alert rules and alerts are kept here: export and remove them before migrating down';
  END IF;
END
$$;
DROP TABLE alert_inbox;
DROP TABLE alert;
DROP TABLE alert_rule;
