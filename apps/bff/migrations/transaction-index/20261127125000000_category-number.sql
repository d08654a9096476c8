-- A row's merchant category code as a number, kept by the engine: the code when it is four
-- digits ('0000' is 0, which files as uncategorized), else null. A category group's range and
-- "uncategorized" then compare an integer rather than match a regular expression on every row
-- (at 1,000,000 rows a group filter's count and breakdown took 520–580 ms, most of it in the
-- two regular expressions), and a rare group is read through its index. Adding the column
-- rewrites the table once.

-- Up Migration

ALTER TABLE index_transaction
  ADD COLUMN category_number integer
  GENERATED ALWAYS AS (CASE WHEN category_code ~ '^[0-9]{4}$' THEN category_code::integer END) STORED;
-- A group with few rows (or none) is then found without reading the rest.
CREATE INDEX index_transaction_category ON index_transaction (category_number);

-- Down Migration

DROP INDEX index_transaction_category;
ALTER TABLE index_transaction DROP COLUMN category_number;
