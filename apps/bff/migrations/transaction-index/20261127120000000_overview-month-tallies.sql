-- The Overview's breakdowns kept per UTC month as well as per UTC day: a year's merchants were
-- 340,000 day lines at 1,000,000 rows (sorted on disk: 320 ms of the Overview's 350), a few
-- thousand month lines now. `overviewTallies` reads the period's whole months from here, its
-- other whole days from the day tallies and its partial days from the rows. A month's lines are
-- summed again from its day lines whenever `index_tally_days` rewrites one of its days.

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
CREATE INDEX index_month_key_tally_month ON index_month_key_tally (sub_account_id, kind, month);

-- The day tallies' index leads with the kind too: a breakdown reads one kind.
DROP INDEX index_day_key_tally_day;
CREATE INDEX index_day_key_tally_day ON index_day_key_tally (sub_account_id, kind, day);

-- Sums the months of `days` (a sub account's) again from their day lines.
CREATE FUNCTION index_tally_months(sub text, days date[]) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  months date[] := (SELECT array_agg(DISTINCT date_trunc('month', d)::date) FROM unnest(days) AS d);
  lo date := (SELECT min(m) FROM unnest(months) AS m);
  hi date := ((SELECT max(m) FROM unnest(months) AS m) + interval '1 month')::date;
BEGIN
  IF lo IS NULL THEN
    RETURN;
  END IF;
  DELETE FROM index_month_key_tally WHERE sub_account_id = sub AND month = ANY(months);
  INSERT INTO index_month_key_tally
  SELECT sub, date_trunc('month', day)::date, kind, key, sum(cents), sum(n)
    FROM index_day_key_tally
   WHERE sub_account_id = sub AND day >= lo AND day < hi
     AND date_trunc('month', day)::date = ANY(months)
   GROUP BY 2, 3, 4;
END
$$;

-- Tallies `days` of a sub account again from its rows: hours and days as before
-- (20261126210000000_overview-tallies.sql), then their months.
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
  PERFORM index_tally_months(sub, days);
END
$$;

-- The months of the days already tallied, summed once.
SELECT index_tally_months(s.sub_account_id, s.days)
  FROM (SELECT sub_account_id, array_agg(DISTINCT day) AS days
          FROM index_day_key_tally GROUP BY sub_account_id) AS s;

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
DROP FUNCTION index_tally_months(text, date[]);
DROP INDEX index_day_key_tally_day;
CREATE INDEX index_day_key_tally_day ON index_day_key_tally (sub_account_id, day);
DROP TABLE index_month_key_tally;
