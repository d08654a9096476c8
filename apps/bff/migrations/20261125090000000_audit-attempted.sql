-- What a refused request was trying to do, on access.denied records (card.reveal, card.update,
-- audit.view, …: packages/shared/src/api/audit-enums.ts). NULL on every other record and on
-- refusals written before this column: the hash chain covers the field only when set.

-- Up Migration

ALTER TABLE audit_record ADD COLUMN attempted text;

-- The audit screen's "Reveal card — denied" filter (action = 'access.denied' AND attempted = …).
CREATE INDEX audit_record_action_attempted ON audit_record (action, attempted, id)
  WHERE attempted IS NOT NULL;
