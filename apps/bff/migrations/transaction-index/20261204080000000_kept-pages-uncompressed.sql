-- The pages a running sync keeps (`index_sync_range_page`) are stored as written, not compressed:
-- each lives until its range ends (seconds to minutes) and is read back at most once, by a
-- restart, so compressing it is work no one gains from. At 1,000,000 rows the pages are about
-- 300 MB of JSON; writing them compressed took PostgreSQL 3.9-4.3 CPU s, uncompressed 1.1-1.3
-- (the deletion and vacuum after: 0.2 against 0.8). Both engines' default would compress a page
-- past 2 kB (pglz).

-- Up Migration

ALTER TABLE index_sync_range_page
  ALTER COLUMN rows SET STORAGE EXTERNAL,
  ALTER COLUMN next_cursor SET STORAGE EXTERNAL;

-- Down Migration

ALTER TABLE index_sync_range_page
  ALTER COLUMN rows SET STORAGE EXTENDED,
  ALTER COLUMN next_cursor SET STORAGE EXTENDED;
