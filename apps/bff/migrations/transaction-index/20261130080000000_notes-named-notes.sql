-- A transaction's notes (memo, category, tags, review) are called notes everywhere: in the
-- product, the API and the code. The table and its index and constraints take the name too.
-- A rename keeps every row, grant and reference as it is.

-- Up Migration

ALTER TABLE transaction_annotation RENAME TO transaction_notes;
ALTER INDEX transaction_annotation_category RENAME TO transaction_notes_category;
ALTER TABLE transaction_notes RENAME CONSTRAINT transaction_annotation_pkey TO transaction_notes_pkey;
ALTER TABLE transaction_notes
  RENAME CONSTRAINT transaction_annotation_category_id_fkey TO transaction_notes_category_id_fkey;
ALTER TABLE transaction_notes
  RENAME CONSTRAINT transaction_annotation_version_check TO transaction_notes_version_check;
ALTER TABLE transaction_notes RENAME CONSTRAINT transaction_annotation_check TO transaction_notes_check;

-- Down Migration

ALTER TABLE transaction_notes RENAME CONSTRAINT transaction_notes_check TO transaction_annotation_check;
ALTER TABLE transaction_notes
  RENAME CONSTRAINT transaction_notes_version_check TO transaction_annotation_version_check;
ALTER TABLE transaction_notes
  RENAME CONSTRAINT transaction_notes_category_id_fkey TO transaction_annotation_category_id_fkey;
ALTER TABLE transaction_notes RENAME CONSTRAINT transaction_notes_pkey TO transaction_annotation_pkey;
ALTER INDEX transaction_notes_category RENAME TO transaction_annotation_category;
ALTER TABLE transaction_notes RENAME TO transaction_annotation;
