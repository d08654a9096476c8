-- Alert delivery (issue 32): the webhook targets admins send alerts to, and the outbox of
-- deliveries (one row per raised alert, channel and recipient or target). The outbox's key is
-- its primary key: a delivery is written once, in the transaction that raised its alert, so a
-- second replica or a restart can never make a second one; the queue (pg-boss on PostgreSQL,
-- an in-process worker on the embedded engine) sends what is pending and records the outcome.

-- Up Migration

-- A place alerts are posted to. The signing secret is shown once, when the target is made, and
-- kept here to sign each request (the receiver holds the same one to check the signature).
CREATE TABLE alert_webhook_target (
  id text COLLATE "C" PRIMARY KEY,
  name text NOT NULL CHECK (name <> ''),
  url text NOT NULL CHECK (url <> ''),
  secret text NOT NULL CHECK (length(secret) >= 32),
  created_by text NOT NULL,
  created_at timestamptz NOT NULL
);

-- A rule names an existing target. Rules saved before targets existed named none that exists:
-- they keep their other channels (the inbox when email was not chosen either).
UPDATE alert_rule
   SET webhook_target_id = NULL, channel_inbox = channel_inbox OR NOT channel_email
 WHERE webhook_target_id IS NOT NULL;
ALTER TABLE alert_rule ADD CONSTRAINT alert_rule_webhook_target
  FOREIGN KEY (webhook_target_id) REFERENCES alert_webhook_target (id);
CREATE INDEX alert_rule_webhook_target ON alert_rule (webhook_target_id)
  WHERE webhook_target_id IS NOT NULL;

-- One delivery. `key` is `<alert's idempotency key>/<channel>/<recipient or target>` (a digest:
-- `digest/<rule>/<UTC day>/<recipient>`). `state`: pending until sent, failed after the last
-- try or a refusal that a retry cannot change. `next_attempt_at` orders the embedded worker's
-- work and its backoff; on PostgreSQL pg-boss holds the schedule and this row the outcome.
CREATE TABLE alert_delivery (
  key text COLLATE "C" PRIMARY KEY CHECK (key <> ''),
  alert_id text COLLATE "C" REFERENCES alert (id) ON DELETE CASCADE,
  rule_id text COLLATE "C",
  channel text NOT NULL CHECK (channel IN ('email', 'webhook', 'digest')),
  recipient text COLLATE "C" NOT NULL CHECK (recipient <> ''),
  state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'sent', 'failed')),
  attempts integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  created_at timestamptz NOT NULL,
  next_attempt_at timestamptz NOT NULL,
  finished_at timestamptz,
  last_error text
);
CREATE INDEX alert_delivery_pending ON alert_delivery (next_attempt_at) WHERE state = 'pending';

GRANT SELECT, INSERT, DELETE ON alert_webhook_target TO card_console_index_writer;
GRANT SELECT, INSERT, UPDATE ON alert_delivery TO card_console_index_writer;

-- Down Migration

DROP TABLE alert_delivery;
ALTER TABLE alert_rule DROP CONSTRAINT alert_rule_webhook_target;
DROP INDEX alert_rule_webhook_target;
DROP TABLE alert_webhook_target;
