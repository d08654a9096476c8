-- A decline reason is kept trimmed, and as none when it is only spaces: as the Overview names a
-- reason ("No reason given" for none or spaces), so a line of its declines by reason opens a list
-- asking for the name it shows. A reason kept before with spaces around it was counted in the
-- Overview's line and missed by the list it opened. Those rows are kept trimmed now and their
-- days tallied again (the tallies' declines by reason are keyed by it).

-- Up Migration

CREATE TEMPORARY TABLE untrimmed_reason_days AS
  SELECT DISTINCT sub_account_id, (at AT TIME ZONE 'UTC')::date AS day
    FROM index_transaction WHERE decline_reason <> btrim(decline_reason) OR decline_reason = '';

UPDATE index_transaction SET decline_reason = nullif(btrim(decline_reason), '')
 WHERE decline_reason <> btrim(decline_reason) OR decline_reason = '';

SELECT index_tally_days(sub_account_id, array_agg(day))
  FROM untrimmed_reason_days GROUP BY sub_account_id;

DROP TABLE untrimmed_reason_days;

-- Down Migration

-- Nothing to undo: the next sync writes what the card service sends, trimmed.
SELECT 1;
