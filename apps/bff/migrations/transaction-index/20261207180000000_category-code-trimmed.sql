-- A merchant category code is kept trimmed, and as none when blank: ' 5812' is 5812 (its group,
-- its filter and its number, `category_number`, which the engine computes from it), and '' or
-- spaces no code. Kept as sent, ' 5812' was a second "5812" line in the totals by category and
-- the Overview's top codes, each opening a list the code could not ask for (every row). Rows
-- kept before are trimmed and their days tallied again (the tallies' categories are keyed by it).

-- Up Migration

CREATE TEMPORARY TABLE untrimmed_code_days AS
  SELECT DISTINCT sub_account_id, (at AT TIME ZONE 'UTC')::date AS day
    FROM index_transaction WHERE category_code <> btrim(category_code) OR category_code = '';

UPDATE index_transaction SET category_code = nullif(btrim(category_code), '')
 WHERE category_code <> btrim(category_code) OR category_code = '';

SELECT index_tally_days(sub_account_id, array_agg(day))
  FROM untrimmed_code_days GROUP BY sub_account_id;

DROP TABLE untrimmed_code_days;

-- Down Migration

-- Nothing to undo: the next sync writes what the card service sends, trimmed.
SELECT 1;
