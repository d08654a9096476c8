-- A TOTP secret a person set up themselves on Security (issue 48, decision 0120), kept with their
-- other second factors (platform/passkeys/sql-factor-store.ts): sealed with TOTP_ENCRYPTION_KEY
-- (platform/security/totp-secret-box.ts), never in clear. When present it is the secret their
-- codes are checked against, in place of any the operator gave them in the users file or people
-- store. Null for everyone until they set one up.

-- Up Migration

ALTER TABLE person_factors
  ADD COLUMN totp_secret text CHECK (totp_secret ~ '^v1:[A-Za-z0-9_-]+(:[A-Za-z0-9_-]+){3}$');

-- Down Migration

ALTER TABLE person_factors DROP COLUMN totp_secret;
