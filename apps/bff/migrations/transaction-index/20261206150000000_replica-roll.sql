-- The replicas alive, for what they must divide among themselves: the card service's published
-- rate limit is its key's, whichever replica calls (platform/pagination/replica-roll.ts). Each
-- replica renews its row's lease while it runs, by the database's clock, and deletes it when it
-- stops; a replica that died is no longer counted once its lease lapses.

-- Up Migration

CREATE TABLE replica_lease (
  id uuid PRIMARY KEY,
  lease_until timestamptz NOT NULL
);

GRANT SELECT, INSERT, UPDATE, DELETE ON replica_lease TO card_console_index_writer;

-- Down Migration

DROP TABLE replica_lease;
