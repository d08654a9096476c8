-- The Overview's breakdowns kept per UTC month as well as per UTC day: a year's merchants were
-- 340,000 day lines at 1,000,000 rows (sorted on disk: 320 ms of the Overview's 350), a few
-- thousand month lines now. `overviewTallies` reads the period's whole months from here, its
-- other whole days from the day tallies and its partial days from the rows. When
-- `index_tally_days` rewrites days, their months take the difference between the days' old
-- lines and their new ones (a write of two days touches their lines, not the month's thirty
-- days of them; a day written again unchanged touches none).

-- Up Migration

-- Per sub account, UTC month (its first day) and kind: the sums of `index_day_key_tally`.
CREATE TABLE index_month_key_tally (
  sub_account_id text COLLATE "C" NOT NULL,
  month date NOT NULL,
  kind "char" NOT NULL,
  key text,
  cents bigint NOT NULL,
  n bigint NOT NULL
);
-- One line per key (no key is a key too): the difference is added to it.
CREATE UNIQUE INDEX index_month_key_tally_key
  ON index_month_key_tally (sub_account_id, kind, month, key) NULLS NOT DISTINCT;

-- The day tallies' index leads with the kind too: a breakdown reads one kind.
DROP INDEX index_day_key_tally_day;
CREATE INDEX index_day_key_tally_day ON index_day_key_tally (sub_account_id, kind, day);

-- Tallies `days` of a sub account again from its rows: hours and days as before
-- (20261126210000000_overview-tallies.sql), and their months by the difference.
CREATE OR REPLACE FUNCTION index_tally_days(sub text, days date[]) RETURNS void
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
  -- The days' lines replaced, and their months given the difference in one statement whose
  -- lines are written in one order: two writes of a sub account's days at once (the sync walks
  -- ranges side by side) that meet in a month lock its lines in the same order, so one waits
  -- for the other rather than each holding what the other needs. A month line whose key has no
  -- line left stays at zero (the reads skip it).
  WITH old AS (
    DELETE FROM index_day_key_tally
     WHERE sub_account_id = sub AND day = ANY(days)
    RETURNING day, kind, key, cents, n
  ), new AS (
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
                             ((t.at AT TIME ZONE 'UTC')::date, t.card_id))
    UNION ALL
    SELECT sub, (t.at AT TIME ZONE 'UTC')::date, 'd', t.decline_reason, 0, count(*)
      FROM index_transaction t
     WHERE t.sub_account_id = sub
       AND t.at >= lo AND t.at < hi
       AND (t.at AT TIME ZONE 'UTC')::date = ANY(days)
       AND t.status = 'declined' AND t.card_id IS NOT NULL
     GROUP BY 2, 4
    RETURNING day, kind, key, cents, n
  )
  INSERT INTO index_month_key_tally AS m
  SELECT sub, month, kind, key, sum(cents), sum(n)
    FROM (SELECT date_trunc('month', day)::date AS month, kind, key, cents, n FROM new
          UNION ALL
          SELECT date_trunc('month', day)::date, kind, key, -cents, -n FROM old) AS lines
   GROUP BY month, kind, key
  HAVING sum(cents) <> 0 OR sum(n) <> 0
   ORDER BY kind, month, key COLLATE "C"
  ON CONFLICT (sub_account_id, kind, month, key)
  DO UPDATE SET cents = m.cents + EXCLUDED.cents, n = m.n + EXCLUDED.n;
END
$$;

-- The months of the days already tallied, summed once.
INSERT INTO index_month_key_tally
SELECT sub_account_id, date_trunc('month', day)::date, kind, key, sum(cents), sum(n)
  FROM index_day_key_tally GROUP BY 1, 2, 3, 4;

GRANT SELECT, INSERT, UPDATE, DELETE ON index_month_key_tally TO card_console_index_writer;

-- Down Migration

CREATE OR REPLACE FUNCTION index_tally_days(sub text, days date[]) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
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
DROP INDEX index_day_key_tally_day;
CREATE INDEX index_day_key_tally_day ON index_day_key_tally (sub_account_id, day);
DROP TABLE index_month_key_tally;
