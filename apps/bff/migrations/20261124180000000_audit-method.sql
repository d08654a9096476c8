-- How a person proved who they are, on sign-in, step-up and second-factor records (password,
-- password+totp, password+passkey, sso, totp, passkey, provider). NULL on every other record
-- and on records written before this column: the hash chain covers the field only when set.

-- Up Migration

ALTER TABLE audit_record ADD COLUMN method text;
