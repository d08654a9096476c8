-- The transaction index (apps/bff/src/features/transaction-index): the card service's
-- transactions of every sub account, as the BFF's own read model. The same SQL runs on
-- PostgreSQL (DATABASE_URL) and on the embedded engine (PGlite, in process). Its rows are a
-- copy that a sync can always rebuild, so a down migration may drop them.

-- Up Migration

CREATE EXTENSION IF NOT EXISTS pg_trgm;

-- One row per transaction of a sub account. Ids are the service's opaque strings, compared
-- byte by byte (COLLATE "C"), so the order of a page never depends on the server's locale.
-- Card-number-shaped text was masked before it got here (every upstream string is).
CREATE TABLE index_transaction (
  sub_account_id text COLLATE "C" NOT NULL,
  id text COLLATE "C" NOT NULL,
  at timestamptz NOT NULL,
  description text NOT NULL,
  merchant text,
  category_code text,
  reference_number text NOT NULL,
  amount_cents bigint NOT NULL,
  status text NOT NULL,
  decline_reason text,
  card_id text COLLATE "C",
  authorized_at timestamptz,
  original_currency jsonb,
  -- What search reads: description, merchant text and reference number, lower-cased.
  search_text text NOT NULL,
  PRIMARY KEY (sub_account_id, id)
);

-- Newest first, one sub account or all; the keyset's tie-breakers are the primary key.
CREATE INDEX index_transaction_account_at ON index_transaction (sub_account_id, at DESC, id DESC);
CREATE INDEX index_transaction_at ON index_transaction (at DESC, sub_account_id DESC, id DESC);
-- Largest first.
CREATE INDEX index_transaction_size ON index_transaction ((abs(amount_cents)) DESC, sub_account_id DESC, id DESC);
CREATE INDEX index_transaction_card_at ON index_transaction (card_id, at DESC);
CREATE INDEX index_transaction_search ON index_transaction USING gin (search_text gin_trgm_ops);

-- What a sync has walked: one row per sub account and UTC day, with when it was walked. A day
-- walked again replaces that day's rows, so rows that changed or vanished upstream follow.
CREATE TABLE index_sync_day (
  sub_account_id text COLLATE "C" NOT NULL,
  day date NOT NULL,
  synced_at timestamptz NOT NULL,
  row_count integer NOT NULL CHECK (row_count >= 0),
  PRIMARY KEY (sub_account_id, day)
);

-- What the BFF's own login is granted on PostgreSQL (the operator grants it this role, as the
-- audit trail's writer role): the index's rows, read and rewritten, nothing else.
DO $$
BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'card_console_index_writer') THEN
    CREATE ROLE card_console_index_writer NOLOGIN;
  END IF;
END
$$;
GRANT SELECT, INSERT, UPDATE, DELETE ON index_transaction, index_sync_day
  TO card_console_index_writer;
GRANT SELECT ON card_console_migrations TO card_console_index_writer;

-- Down Migration

DROP TABLE index_sync_day;
DROP TABLE index_transaction;
