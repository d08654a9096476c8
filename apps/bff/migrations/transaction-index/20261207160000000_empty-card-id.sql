-- An empty card id is no card (`hasCard`, packages/shared's money definition, docs/money.md):
-- the index now keeps it as none, so every `card_id IS NOT NULL` (the tallies' card rows and
-- card declines, the cards' lists) reads a row as the money's buckets do. A row written before
-- with an empty card id was counted as a card row and a card decline (the Overview's decline rate
-- and its declines by reason) while its money counted as a payment or a transfer. Those rows are
-- set to none and their days tallied again; an index without any reads nothing else.

-- Up Migration

CREATE TEMPORARY TABLE empty_card_days AS
  SELECT DISTINCT sub_account_id, (at AT TIME ZONE 'UTC')::date AS day
    FROM index_transaction WHERE card_id = '';

UPDATE index_transaction SET card_id = NULL WHERE card_id = '';

SELECT index_tally_days(sub_account_id, array_agg(day))
  FROM empty_card_days GROUP BY sub_account_id;

DROP TABLE empty_card_days;

-- Down Migration

-- Nothing to undo: a row with no card id reads as the one with an empty one did under the money
-- definition, and the next sync writes what the card service sends.
SELECT 1;
