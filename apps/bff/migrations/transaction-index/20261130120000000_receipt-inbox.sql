-- The receipt inbox (issue 47, decision 0118): files people drop in a pile or forward by email,
-- each read (PDF text, OCR) by a background job (`receipt-inbox`, platform/jobs) and matched to
-- a transaction of the index. An item keeps its bytes until it is attached: then the bytes go to
-- `transaction_receipt` in the same transaction and the item keeps only where they went.

-- Up Migration

CREATE TABLE receipt_inbox_item (
  id text COLLATE "C" PRIMARY KEY,
  -- The person whose inbox it is: their email, as sessions name them.
  owner text NOT NULL,
  file_name text NOT NULL,
  media_type text NOT NULL,
  byte_size integer NOT NULL CHECK (byte_size > 0),
  sha256 text NOT NULL CHECK (sha256 ~ '^[0-9a-f]{64}$'),
  -- Null once attached (the receipt holds the bytes).
  content bytea,
  via text NOT NULL CHECK (via IN ('upload', 'email')),
  received_at timestamptz NOT NULL,
  status text NOT NULL CHECK (status IN ('reading', 'suggested', 'waiting', 'attached')),
  -- What the reader found; each null when it could not.
  read_total_cents bigint CHECK (read_total_cents > 0),
  read_date date,
  read_merchant text,
  read_problem text CHECK (read_problem IN ('unreadable', 'too_slow', 'too_large')),
  -- The transactions suggested, best first (shared/api/receipt-inbox.ts's suggestion shape).
  suggestions jsonb NOT NULL DEFAULT '[]',
  -- When it was last matched: a waiting item is matched again as the index grows.
  matched_at timestamptz,
  attached_sub_account_id text COLLATE "C",
  attached_transaction_id text COLLATE "C",
  attached_receipt_id text COLLATE "C",
  -- The transaction as it was when attached, so the inbox names it without asking the service.
  attached_description text,
  attached_transaction_at timestamptz,
  attached_amount_cents bigint,
  attached_automatic boolean,
  attached_at timestamptz,
  CHECK ((status = 'attached') = (attached_receipt_id IS NOT NULL)),
  CHECK (status = 'attached' OR content IS NOT NULL)
);
CREATE INDEX receipt_inbox_item_owner ON receipt_inbox_item (owner, received_at DESC);
CREATE INDEX receipt_inbox_item_waiting ON receipt_inbox_item (matched_at) WHERE status = 'waiting';

-- Each person's private forwarding address, `receipts+<secret>@<domain>`: the secret names the
-- person (a From header can be forged). A new one replaces the old, whose mail is refused.
CREATE TABLE receipt_forwarding_address (
  owner text PRIMARY KEY,
  secret text COLLATE "C" NOT NULL UNIQUE,
  created_at timestamptz NOT NULL
);

GRANT SELECT, INSERT, UPDATE, DELETE ON receipt_inbox_item, receipt_forwarding_address
  TO card_console_index_writer;

-- Down Migration

DROP TABLE receipt_forwarding_address;
DROP TABLE receipt_inbox_item;
