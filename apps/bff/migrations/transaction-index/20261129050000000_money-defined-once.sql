-- The Overview counts money by the one definition (packages/shared/src/money-definition.ts,
-- docs/money.md) rather than its own list of statuses: each hour's rows by bucket (card spend,
-- refunds, other payments, transfers in, released, declined (attempted), returned), with the
-- pending part of each, in place of one "debits" and one "credits" that mixed a card's spend
-- with ACH payments and funding; and the breakdowns by category, merchant and card of card
-- spend only (card charges less refunds, settled, pending and disputed), so a payment without a
-- card is never a category's spend. The bucket and the statuses below are the definition's
-- `moneyBucketSql` and `cardSpendSql` written out (a migration does not import); the contract
-- suite compares what is read with the definition's own `summarize` on both engines. Every day
-- already tallied is tallied again.

-- Up Migration

ALTER TABLE index_hour_tally
  DROP COLUMN debits,
  DROP COLUMN credits,
  DROP COLUMN pending,
  ADD COLUMN m_card_n bigint NOT NULL DEFAULT 0,
  ADD COLUMN m_card_cents bigint NOT NULL DEFAULT 0,
  ADD COLUMN m_card_pending_n bigint NOT NULL DEFAULT 0,
  ADD COLUMN m_card_pending_cents bigint NOT NULL DEFAULT 0,
  ADD COLUMN m_refund_n bigint NOT NULL DEFAULT 0,
  ADD COLUMN m_refund_cents bigint NOT NULL DEFAULT 0,
  ADD COLUMN m_refund_pending_n bigint NOT NULL DEFAULT 0,
  ADD COLUMN m_refund_pending_cents bigint NOT NULL DEFAULT 0,
  ADD COLUMN m_payment_n bigint NOT NULL DEFAULT 0,
  ADD COLUMN m_payment_cents bigint NOT NULL DEFAULT 0,
  ADD COLUMN m_payment_pending_n bigint NOT NULL DEFAULT 0,
  ADD COLUMN m_payment_pending_cents bigint NOT NULL DEFAULT 0,
  ADD COLUMN m_transfer_n bigint NOT NULL DEFAULT 0,
  ADD COLUMN m_transfer_cents bigint NOT NULL DEFAULT 0,
  ADD COLUMN m_transfer_pending_n bigint NOT NULL DEFAULT 0,
  ADD COLUMN m_transfer_pending_cents bigint NOT NULL DEFAULT 0,
  ADD COLUMN m_released_n bigint NOT NULL DEFAULT 0,
  ADD COLUMN m_released_cents bigint NOT NULL DEFAULT 0,
  ADD COLUMN m_released_pending_n bigint NOT NULL DEFAULT 0,
  ADD COLUMN m_released_pending_cents bigint NOT NULL DEFAULT 0,
  ADD COLUMN m_attempted_n bigint NOT NULL DEFAULT 0,
  ADD COLUMN m_attempted_cents bigint NOT NULL DEFAULT 0,
  ADD COLUMN m_attempted_pending_n bigint NOT NULL DEFAULT 0,
  ADD COLUMN m_attempted_pending_cents bigint NOT NULL DEFAULT 0,
  ADD COLUMN m_returned_n bigint NOT NULL DEFAULT 0,
  ADD COLUMN m_returned_cents bigint NOT NULL DEFAULT 0,
  ADD COLUMN m_returned_pending_n bigint NOT NULL DEFAULT 0,
  ADD COLUMN m_returned_pending_cents bigint NOT NULL DEFAULT 0;

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
  INSERT INTO index_hour_tally (
    sub_account_id, hour, n, pending_n, card_n, declines,
    m_card_n,
    m_card_cents,
    m_card_pending_n,
    m_card_pending_cents,
    m_refund_n,
    m_refund_cents,
    m_refund_pending_n,
    m_refund_pending_cents,
    m_payment_n,
    m_payment_cents,
    m_payment_pending_n,
    m_payment_pending_cents,
    m_transfer_n,
    m_transfer_cents,
    m_transfer_pending_n,
    m_transfer_pending_cents,
    m_released_n,
    m_released_cents,
    m_released_pending_n,
    m_released_pending_cents,
    m_attempted_n,
    m_attempted_cents,
    m_attempted_pending_n,
    m_attempted_pending_cents,
    m_returned_n,
    m_returned_cents,
    m_returned_pending_n,
    m_returned_pending_cents)
  SELECT sub, date_trunc('hour', t.at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC',
         count(*),
         count(*) FILTER (WHERE t.status = 'pending'),
         count(t.card_id),
         count(*) FILTER (WHERE t.status = 'declined' AND t.card_id IS NOT NULL),
         count(*) FILTER (WHERE t.bucket = 'card'),
         coalesce(sum(t.amount_cents) FILTER (WHERE t.bucket = 'card'), 0),
         count(*) FILTER (WHERE t.bucket = 'card' AND t.status IN ('pending')),
         coalesce(sum(t.amount_cents) FILTER (WHERE t.bucket = 'card' AND t.status IN ('pending')), 0),
         count(*) FILTER (WHERE t.bucket = 'refund'),
         coalesce(sum(t.amount_cents) FILTER (WHERE t.bucket = 'refund'), 0),
         count(*) FILTER (WHERE t.bucket = 'refund' AND t.status IN ('pending')),
         coalesce(sum(t.amount_cents) FILTER (WHERE t.bucket = 'refund' AND t.status IN ('pending')), 0),
         count(*) FILTER (WHERE t.bucket = 'payment'),
         coalesce(sum(t.amount_cents) FILTER (WHERE t.bucket = 'payment'), 0),
         count(*) FILTER (WHERE t.bucket = 'payment' AND t.status IN ('pending')),
         coalesce(sum(t.amount_cents) FILTER (WHERE t.bucket = 'payment' AND t.status IN ('pending')), 0),
         count(*) FILTER (WHERE t.bucket = 'transfer'),
         coalesce(sum(t.amount_cents) FILTER (WHERE t.bucket = 'transfer'), 0),
         count(*) FILTER (WHERE t.bucket = 'transfer' AND t.status IN ('pending')),
         coalesce(sum(t.amount_cents) FILTER (WHERE t.bucket = 'transfer' AND t.status IN ('pending')), 0),
         count(*) FILTER (WHERE t.bucket = 'released'),
         coalesce(sum(t.amount_cents) FILTER (WHERE t.bucket = 'released'), 0),
         count(*) FILTER (WHERE t.bucket = 'released' AND t.status IN ('pending')),
         coalesce(sum(t.amount_cents) FILTER (WHERE t.bucket = 'released' AND t.status IN ('pending')), 0),
         count(*) FILTER (WHERE t.bucket = 'attempted'),
         coalesce(sum(t.amount_cents) FILTER (WHERE t.bucket = 'attempted'), 0),
         count(*) FILTER (WHERE t.bucket = 'attempted' AND t.status IN ('pending')),
         coalesce(sum(t.amount_cents) FILTER (WHERE t.bucket = 'attempted' AND t.status IN ('pending')), 0),
         count(*) FILTER (WHERE t.bucket = 'returned'),
         coalesce(sum(t.amount_cents) FILTER (WHERE t.bucket = 'returned'), 0),
         count(*) FILTER (WHERE t.bucket = 'returned' AND t.status IN ('pending')),
         coalesce(sum(t.amount_cents) FILTER (WHERE t.bucket = 'returned' AND t.status IN ('pending')), 0)
    FROM (SELECT at, status, amount_cents, card_id,
                 CASE
                   WHEN status IN ('reversed') THEN 'released'
                   WHEN status IN ('declined', 'canceled', 'failed') THEN 'attempted'
                   WHEN status IN ('returned') THEN 'returned'
                   WHEN (card_id IS NOT NULL AND card_id <> '') AND amount_cents < 0 THEN 'card'
                   WHEN (card_id IS NOT NULL AND card_id <> '') THEN 'refund'
                   WHEN amount_cents < 0 THEN 'payment'
                   ELSE 'transfer' END AS bucket
            FROM index_transaction
           WHERE sub_account_id = sub
             AND at >= lo AND at < hi
             AND (at AT TIME ZONE 'UTC')::date = ANY(days)) AS t
   GROUP BY 2;
  -- The days' lines replaced, and their months given the difference (as in
  -- 20261127120000000_overview-month-tallies.sql: one statement, lines in one order).
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
       AND t.status IN ('settled', 'refund', 'dispute', 'pending')
       AND t.card_id IS NOT NULL AND t.card_id <> ''
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

-- The rows already indexed, tallied again by the definition.
SELECT index_tally_days(s.sub_account_id, s.days)
  FROM (SELECT sub_account_id, array_agg(DISTINCT (at AT TIME ZONE 'UTC')::date) AS days
          FROM index_transaction GROUP BY sub_account_id) AS s;

-- Down Migration

ALTER TABLE index_hour_tally
  ADD COLUMN debits bigint NOT NULL DEFAULT 0,
  ADD COLUMN credits bigint NOT NULL DEFAULT 0,
  ADD COLUMN pending bigint NOT NULL DEFAULT 0,
  DROP COLUMN m_card_n,
  DROP COLUMN m_card_cents,
  DROP COLUMN m_card_pending_n,
  DROP COLUMN m_card_pending_cents,
  DROP COLUMN m_refund_n,
  DROP COLUMN m_refund_cents,
  DROP COLUMN m_refund_pending_n,
  DROP COLUMN m_refund_pending_cents,
  DROP COLUMN m_payment_n,
  DROP COLUMN m_payment_cents,
  DROP COLUMN m_payment_pending_n,
  DROP COLUMN m_payment_pending_cents,
  DROP COLUMN m_transfer_n,
  DROP COLUMN m_transfer_cents,
  DROP COLUMN m_transfer_pending_n,
  DROP COLUMN m_transfer_pending_cents,
  DROP COLUMN m_released_n,
  DROP COLUMN m_released_cents,
  DROP COLUMN m_released_pending_n,
  DROP COLUMN m_released_pending_cents,
  DROP COLUMN m_attempted_n,
  DROP COLUMN m_attempted_cents,
  DROP COLUMN m_attempted_pending_n,
  DROP COLUMN m_attempted_pending_cents,
  DROP COLUMN m_returned_n,
  DROP COLUMN m_returned_cents,
  DROP COLUMN m_returned_pending_n,
  DROP COLUMN m_returned_pending_cents;

-- The function as 20261127120000000_overview-month-tallies.sql left it.
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

SELECT index_tally_days(s.sub_account_id, s.days)
  FROM (SELECT sub_account_id, array_agg(DISTINCT (at AT TIME ZONE 'UTC')::date) AS days
          FROM index_transaction GROUP BY sub_account_id) AS s;
