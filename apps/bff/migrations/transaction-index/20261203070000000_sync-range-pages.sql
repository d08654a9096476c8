-- The pages a running index sync has read of each date range it has not finished, with the cursor
-- that continues each: a sync stopped mid-walk (a restart, a crash, a replica taking over) goes on
-- from each open range's last page rather than walking the range again. Rows stay here, as read,
-- until their range is walked to its end; then its days replace the index's in the transaction
-- that deletes its pages. One row a page, so writing a page never rewrites the range's others.

-- Up Migration

CREATE TABLE index_sync_range_page (
  sub_account_id text NOT NULL,
  -- The range's bounds, inclusive Unix ms: the rows kept, and the dates asked for (one
  -- millisecond past `to_ms` for a range below another).
  from_ms bigint NOT NULL,
  to_ms bigint NOT NULL,
  ask_to_ms bigint NOT NULL,
  page integer NOT NULL CHECK (page >= 1),
  -- The cursor of the page after this one, as JSON text (any string the card service sends,
  -- NUL included, comes back the same); absent: this page was the range's last.
  next_cursor text,
  -- The page's rows within the range, as the index keeps them, as JSON text.
  rows text NOT NULL,
  written_at timestamptz NOT NULL,
  PRIMARY KEY (sub_account_id, from_ms, page),
  CHECK (from_ms <= to_ms AND to_ms <= ask_to_ms)
);

GRANT SELECT, INSERT, UPDATE, DELETE ON index_sync_range_page TO card_console_index_writer;

-- Down Migration

DROP TABLE index_sync_range_page;
