-- A decline reason and a merchant category code are kept trimmed, and as none when blank: as the
-- Overview names them, so a line of its declines by reason or its top codes opens a list asking
-- for the name it shows (' 5812' is 5812: its group, its filter, and its `category_number`, which
-- the engine computes from it). Kept as sent, a reason with spaces around it was counted in the
-- Overview's line and missed by the list it opened, and ' 5812' was a second 5812 line opening
-- every row. Rows kept before are trimmed and their days tallied again (the tallies' declines by
-- reason and categories are keyed by them).

-- Up Migration

CREATE TEMPORARY TABLE untrimmed_days AS
  SELECT DISTINCT sub_account_id, (at AT TIME ZONE 'UTC')::date AS day
    FROM index_transaction
   WHERE decline_reason <> btrim(decline_reason) OR decline_reason = ''
      OR category_code <> btrim(category_code) OR category_code = '';

UPDATE index_transaction
   SET decline_reason = nullif(btrim(decline_reason), ''),
       category_code = nullif(btrim(category_code), '')
 WHERE decline_reason <> btrim(decline_reason) OR decline_reason = ''
    OR category_code <> btrim(category_code) OR category_code = '';

SELECT index_tally_days(sub_account_id, array_agg(day))
  FROM untrimmed_days GROUP BY sub_account_id;

DROP TABLE untrimmed_days;

-- Down Migration

-- Nothing to undo: the next sync writes what the card service sends, trimmed.
SELECT 1;
