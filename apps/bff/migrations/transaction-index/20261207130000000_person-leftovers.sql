-- A person removed takes what is theirs alone with them, in the removal's own transaction
-- (decision 0128): their receipt inbox and forwarding address, their own alert rules and their
-- copies of alerts, and the alert emails still waiting to be sent to them. Whoever is given the
-- email next starts with none of it. The writer may now delete a person's inbox copies.

-- Up Migration

GRANT DELETE ON alert_inbox TO card_console_index_writer;

-- Down Migration

REVOKE DELETE ON alert_inbox FROM card_console_index_writer;
