-- The month close's policy admins set (issue 46, decision 0116): money moved at or above
-- `receipt_from_cents` needs a receipt (null: no receipt policy), and transactions booked to one
-- of `memo_category_ids` need a memo. One row at most, written by an admin's change; while there
-- is none the policy is the default (receipts from $75, no memo categories: features/close-policy),
-- so nothing changes until an admin sets one. The category ids are the chart of accounts' (an
-- array has no foreign key; the change checks them).

-- Up Migration

CREATE TABLE close_policy (
  -- Always true: the primary key and this check keep the table to one row.
  id boolean PRIMARY KEY DEFAULT true CHECK (id),
  receipt_from_cents bigint CHECK (receipt_from_cents >= 0),
  memo_category_ids text[] NOT NULL DEFAULT '{}',
  updated_by text NOT NULL,
  updated_at timestamptz NOT NULL
);

GRANT SELECT, INSERT, UPDATE ON close_policy TO card_console_index_writer;

-- Down Migration

DROP TABLE close_policy;
