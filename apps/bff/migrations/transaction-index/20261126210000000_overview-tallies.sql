-- The Overview's figures kept per sub account and hour (totals) and per sub account and UTC day
-- (its breakdowns), rewritten with the rows of the days a sync replaces (`replaceDays`), so an
-- Overview of a year reads thousands of tally lines rather than every transaction of two years
-- (`overviewTallies`; at 1,000,000 rows 1.2 s before). Read where a person's days begin on the
-- hour (every zone but the few with half- and quarter-hour offsets, which read the rows), and
-- the breakdowns of whole UTC days, the period's partial days at either end read from the rows.

-- Up Migration

-- Per sub account and UTC hour: what `overviewTallies` adds up per day.
CREATE TABLE index_hour_tally (
  sub_account_id text COLLATE "C" NOT NULL,
  hour timestamptz NOT NULL,
  n bigint NOT NULL,
  pending_n bigint NOT NULL,
  card_n bigint NOT NULL,
  declines bigint NOT NULL,
  debits bigint NOT NULL,
  credits bigint NOT NULL,
  pending bigint NOT NULL,
  PRIMARY KEY (sub_account_id, hour)
);

-- Per sub account, UTC day and kind: debits that moved money by category code ('c'), merchant
-- ('m') and card ('k'); declined card transactions by decline reason ('d'). A key may be null
-- (no category, no reason), so no primary key: the day's lines are replaced together.
CREATE TABLE index_day_key_tally (
  sub_account_id text COLLATE "C" NOT NULL,
  day date NOT NULL,
  kind "char" NOT NULL,
  key text,
  cents bigint NOT NULL,
  n bigint NOT NULL
);
CREATE INDEX index_day_key_tally_day ON index_day_key_tally (sub_account_id, day);

-- Tallies `days` of a sub account again from its rows. The statuses that move money are
-- SPEND_STATUSES (packages/shared/src/index-vocabulary.ts); the contract suite compares what
-- is read here with a brute force over the rows on both engines.
CREATE FUNCTION index_tally_days(sub text, days date[]) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  -- The days' span, which bounds every scan (the index on sub account and time).
  lo timestamptz := (SELECT min(d) FROM unnest(days) AS d)::timestamp AT TIME ZONE 'UTC';
  hi timestamptz := ((SELECT max(d) FROM unnest(days) AS d) + 1)::timestamp AT TIME ZONE 'UTC';
BEGIN
  IF lo IS NULL THEN
    RETURN;
  END IF;
  DELETE FROM index_hour_tally
   WHERE sub_account_id = sub
     AND hour >= lo AND hour < hi
     AND (hour AT TIME ZONE 'UTC')::date = ANY(days);
  DELETE FROM index_day_key_tally
   WHERE sub_account_id = sub AND day = ANY(days);
  INSERT INTO index_hour_tally
  SELECT sub, date_trunc('hour', t.at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC',
         count(*),
         count(*) FILTER (WHERE t.status = 'pending'),
         count(t.card_id),
         count(*) FILTER (WHERE t.status = 'declined' AND t.card_id IS NOT NULL),
         coalesce(sum(-t.amount_cents) FILTER (WHERE t.status IN ('pending', 'settled', 'refund', 'dispute') AND t.amount_cents < 0), 0),
         coalesce(sum(t.amount_cents) FILTER (WHERE t.status IN ('pending', 'settled', 'refund', 'dispute') AND t.amount_cents > 0), 0),
         coalesce(sum(-t.amount_cents) FILTER (WHERE t.status = 'pending' AND t.amount_cents < 0), 0)
    FROM index_transaction t
   WHERE t.sub_account_id = sub
     AND t.at >= lo AND t.at < hi
     AND (t.at AT TIME ZONE 'UTC')::date = ANY(days)
   GROUP BY 2;
  INSERT INTO index_day_key_tally
  SELECT sub, (t.at AT TIME ZONE 'UTC')::date,
         CASE WHEN GROUPING(t.category_code) = 0 THEN 'c'
              WHEN GROUPING(t.merchant) = 0 THEN 'm' ELSE 'k' END::"char",
         CASE WHEN GROUPING(t.category_code) = 0 THEN t.category_code
              WHEN GROUPING(t.merchant) = 0 THEN t.merchant ELSE t.card_id END,
         sum(-t.amount_cents), count(*)
    FROM index_transaction t
   WHERE t.sub_account_id = sub
     AND t.at >= lo AND t.at < hi
     AND (t.at AT TIME ZONE 'UTC')::date = ANY(days)
     AND t.status IN ('pending', 'settled', 'refund', 'dispute') AND t.amount_cents < 0
   GROUP BY GROUPING SETS (((t.at AT TIME ZONE 'UTC')::date, t.category_code),
                           ((t.at AT TIME ZONE 'UTC')::date, t.merchant),
                           ((t.at AT TIME ZONE 'UTC')::date, t.card_id));
  INSERT INTO index_day_key_tally
  SELECT sub, (t.at AT TIME ZONE 'UTC')::date, 'd', t.decline_reason, 0, count(*)
    FROM index_transaction t
   WHERE t.sub_account_id = sub
     AND t.at >= lo AND t.at < hi
     AND (t.at AT TIME ZONE 'UTC')::date = ANY(days)
     AND t.status = 'declined' AND t.card_id IS NOT NULL
   GROUP BY 2, 4;
END
$$;

-- The rows already indexed, tallied once.
SELECT index_tally_days(s.sub_account_id, s.days)
  FROM (SELECT sub_account_id, array_agg(DISTINCT (at AT TIME ZONE 'UTC')::date) AS days
          FROM index_transaction GROUP BY sub_account_id) AS s;

GRANT SELECT, INSERT, UPDATE, DELETE ON index_hour_tally, index_day_key_tally
  TO card_console_index_writer;

-- Down Migration

DROP FUNCTION index_tally_days(text, date[]);
DROP TABLE index_day_key_tally;
DROP TABLE index_hour_tally;
