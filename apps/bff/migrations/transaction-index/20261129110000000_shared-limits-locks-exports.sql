-- Rate-limit counters, export slots and export receipts in PostgreSQL (issue 44), so several
-- replicas share them with no second engine. Expiry is by the database's clock
-- (clock_timestamp()), so replicas' clocks do not matter; the stores delete lapsed rows as they
-- write, a bounded batch at a time. The keyed lock needs no table: it is an advisory lock.

-- Up Migration

-- One row per limiter and key (`<limiter>:<key>`, as rate-limiter-flexible names them). No
-- expiry: a counter whose window never ends (a limiter of duration 0).
CREATE TABLE rate_limit_counter (
  key text COLLATE "C" PRIMARY KEY CHECK (key <> '' AND octet_length(key) <= 1024),
  points integer NOT NULL,
  expires_at timestamptz
);
CREATE INDEX rate_limit_counter_expiry ON rate_limit_counter (expires_at);

-- A running export's slot, counted against the person's cap and the total. Its replica renews
-- the lease while the export runs: a slot whose replica died is free again once its lease
-- lapses (seconds), and any slot at its lifetime's end, renewed or not.
CREATE TABLE export_slot (
  id uuid PRIMARY KEY,
  person text COLLATE "C" NOT NULL CHECK (person <> ''),
  lease_until timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  CHECK (lease_until <= expires_at)
);
CREATE INDEX export_slot_person ON export_slot (person, expires_at);
CREATE INDEX export_slot_expiry ON export_slot (expires_at);

-- What a finished export produced, by its person and request id, kept a short while.
CREATE TABLE export_receipt (
  person text COLLATE "C" NOT NULL CHECK (person <> ''),
  request_id text COLLATE "C" NOT NULL CHECK (request_id <> ''),
  row_count bigint NOT NULL CHECK (row_count >= 0),
  byte_count bigint NOT NULL CHECK (byte_count >= 0),
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (person, request_id)
);
CREATE INDEX export_receipt_expiry ON export_receipt (expires_at);

GRANT SELECT, INSERT, UPDATE, DELETE ON rate_limit_counter, export_slot, export_receipt
  TO card_console_index_writer;

-- Down Migration

DROP TABLE export_receipt;
DROP TABLE export_slot;
DROP TABLE rate_limit_counter;
