-- Alert limits (issue 42): one person could make 200 identical rules and, from 5 declines,
-- about 1,000 emails in one sync, everyone else's queued behind them.
-- - Identical rules are refused: a unique index over what makes a rule the same one (whose it
--   is, its kind, its amount or share, its sub account and card, its webhook target); the name,
--   the inbox/email channels, the digest and whether it is on do not make a rule another one.
--   Rules saved before this migration that repeat an older one are kept as they are
--   (`kept_duplicate`) until they are changed, when the index holds them too.
-- - The cap of rules per person is the store's count under a lock (features/alerts).
-- - Emails to one recipient beyond the hour's cap are written `folded`: never sent one by one,
--   listed in that recipient's digest of the day instead. The count reads the recipient's
--   emails of the last hour through the new index.

-- Up Migration

ALTER TABLE alert_rule ADD COLUMN kept_duplicate boolean NOT NULL DEFAULT false;

UPDATE alert_rule r
   SET kept_duplicate = true
 WHERE EXISTS (
   SELECT FROM alert_rule o
    WHERE o.owner_email IS NOT DISTINCT FROM r.owner_email
      AND o.kind = r.kind
      AND o.amount_cents IS NOT DISTINCT FROM r.amount_cents
      AND o.share_percent IS NOT DISTINCT FROM r.share_percent
      AND o.sub_account_id IS NOT DISTINCT FROM r.sub_account_id
      AND o.card_id IS NOT DISTINCT FROM r.card_id
      AND o.webhook_target_id IS NOT DISTINCT FROM r.webhook_target_id
      AND (o.created_at, o.id) < (r.created_at, r.id));

-- An owner is never '' (its CHECK), an amount or share never 0, an id never '': the COALESCE
-- values stand for "none" and nothing else.
CREATE UNIQUE INDEX alert_rule_identical ON alert_rule (
  (COALESCE(owner_email, '')), kind, (COALESCE(amount_cents, 0)), (COALESCE(share_percent, 0)),
  (COALESCE(sub_account_id, '')), (COALESCE(card_id, '')), (COALESCE(webhook_target_id, ''))
) WHERE NOT kept_duplicate;

ALTER TABLE alert_delivery DROP CONSTRAINT alert_delivery_state_check;
ALTER TABLE alert_delivery ADD CONSTRAINT alert_delivery_state_check
  CHECK (state IN ('pending', 'sent', 'failed', 'folded'));

CREATE INDEX alert_delivery_email_recipient ON alert_delivery (recipient, created_at)
  WHERE channel = 'email';
-- The day's folded emails, for the digests written once the day is over.
CREATE INDEX alert_delivery_folded ON alert_delivery (created_at) WHERE state = 'folded';

-- Down Migration

DROP INDEX alert_delivery_folded;
DROP INDEX alert_delivery_email_recipient;
UPDATE alert_delivery SET state = 'failed', last_error = 'folded into the digest'
 WHERE state = 'folded';
ALTER TABLE alert_delivery DROP CONSTRAINT alert_delivery_state_check;
ALTER TABLE alert_delivery ADD CONSTRAINT alert_delivery_state_check
  CHECK (state IN ('pending', 'sent', 'failed'));
DROP INDEX alert_rule_identical;
ALTER TABLE alert_rule DROP COLUMN kept_duplicate;
