-- What Card Console keeps about transactions that the card service has no place for (issue
-- "close the month"): the chart of accounts admins keep, and each transaction's notes (memo,
-- accounting category, tags, review). Beside the index, in the same store, shared by replicas.
-- Unlike the index's rows these are people's work, which no sync can rebuild: the down
-- migration refuses to drop them while any exist.

-- Up Migration

-- The chart of accounts. An id of our own (a UUID), so a code can be corrected without
-- touching the transactions booked to it; codes are unique whatever their case.
CREATE TABLE accounting_category (
  id text COLLATE "C" PRIMARY KEY,
  code text NOT NULL,
  name text NOT NULL,
  archived boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE UNIQUE INDEX accounting_category_code ON accounting_category (lower(code));

-- One row per transaction that has notes, by the card service's transaction id (unique across
-- sub accounts: the contract reads a transaction by it alone). Not tied to index_transaction:
-- a day walked again replaces its rows, and the notes must outlive that. `version` goes up by
-- one with every change; a change names the version it was made on.
CREATE TABLE transaction_annotation (
  transaction_id text COLLATE "C" PRIMARY KEY,
  memo text NOT NULL DEFAULT '',
  category_id text COLLATE "C" REFERENCES accounting_category (id),
  tags text[] NOT NULL DEFAULT '{}',
  reviewed_by text,
  reviewed_at timestamptz,
  version integer NOT NULL CHECK (version > 0),
  updated_by text NOT NULL,
  updated_at timestamptz NOT NULL,
  CHECK ((reviewed_by IS NULL) = (reviewed_at IS NULL))
);
CREATE INDEX transaction_annotation_category ON transaction_annotation (category_id)
  WHERE category_id IS NOT NULL;

-- Merchant rules admins set: rows indexed from then on whose merchant text is this one
-- (whatever its case) and that have no notes yet are booked to the rule's category. A person's
-- choice is never overwritten: a row with notes is left as it is.
CREATE TABLE merchant_rule (
  id text COLLATE "C" PRIMARY KEY,
  merchant text NOT NULL,
  category_id text COLLATE "C" NOT NULL REFERENCES accounting_category (id),
  created_by text NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE UNIQUE INDEX merchant_rule_merchant ON merchant_rule (lower(merchant));

-- Receipts: a few files per transaction, their type decided by their bytes and their image
-- metadata removed before they get here (features/annotations/receipt-file.ts).
CREATE TABLE transaction_receipt (
  id text COLLATE "C" PRIMARY KEY,
  transaction_id text COLLATE "C" NOT NULL,
  file_name text NOT NULL,
  media_type text NOT NULL,
  byte_size integer NOT NULL CHECK (byte_size > 0),
  sha256 text NOT NULL CHECK (sha256 ~ '^[0-9a-f]{64}$'),
  content bytea NOT NULL,
  uploaded_by text NOT NULL,
  uploaded_at timestamptz NOT NULL
);
CREATE INDEX transaction_receipt_transaction ON transaction_receipt (transaction_id, uploaded_at);

GRANT SELECT, INSERT, UPDATE ON accounting_category, transaction_annotation
  TO card_console_index_writer;
GRANT SELECT, INSERT, DELETE ON transaction_receipt TO card_console_index_writer;
GRANT SELECT, INSERT, DELETE ON merchant_rule TO card_console_index_writer;

-- Down Migration

DO $$
BEGIN
  IF EXISTS (SELECT FROM transaction_annotation) OR EXISTS (SELECT FROM accounting_category)
     OR EXISTS (SELECT FROM merchant_rule) OR EXISTS (SELECT FROM transaction_receipt) THEN
    RAISE EXCEPTION 'transaction notes and the chart of accounts hold people''s work: export and remove them before migrating down';
  END IF;
END
$$;
DROP TABLE transaction_receipt;
DROP TABLE merchant_rule;
DROP TABLE transaction_annotation;
DROP TABLE accounting_category;
