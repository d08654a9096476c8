-- The names admins give merchants (issue 49, decision 0125). The index groups its card
-- descriptors into merchants by `merchants.ts` (a group's key: `acme fuel`); a row here makes
-- the group `merchant_key` go by `name` instead, and so belong to the merchant `name_key` (the
-- key of that name): a new name renames it, another merchant's name makes the two one. No row:
-- the group goes by the name its descriptors give. Read on every request that groups merchants,
-- so a change is seen by every replica at its next request.

-- Up Migration

CREATE TABLE index_merchant_name (
  merchant_key text PRIMARY KEY CHECK (merchant_key <> ''),
  name text NOT NULL CHECK (name <> ''),
  name_key text NOT NULL CHECK (name_key <> ''),
  updated_by text NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX index_merchant_name_name_key ON index_merchant_name (name_key);

GRANT SELECT, INSERT, UPDATE, DELETE ON index_merchant_name TO card_console_index_writer;

-- Down Migration

DROP TABLE index_merchant_name;
