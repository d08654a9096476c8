-- Second-factor secrets sealed (issue 42). `person.totp_secret` holds only an envelope,
-- `v1:<key id>:<iv>:<ciphertext>:<tag>`: AES-256-GCM under TOTP_ENCRYPTION_KEY, bound to the
-- person's email (apps/bff/src/platform/security/totp-secret-box.ts), so a dump of the database
-- or the app's login alone reads no secret. SQL cannot encrypt: the secrets kept in clear so far
-- move to `totp_secret_unsealed`, which the BFF seals and empties when it first opens the people
-- store with its key (features/people/person-secrets.ts), or when the person next uses it.
-- Nothing writes that column again. An invitation keeps the secret the server made for the
-- invitee's authenticator, sealed to that invitation, until it is used or can no longer be.

-- Up Migration

ALTER TABLE person ADD COLUMN totp_secret_unsealed text;
UPDATE person SET totp_secret_unsealed = totp_secret, totp_secret = NULL
  WHERE totp_secret IS NOT NULL;
ALTER TABLE person ADD CONSTRAINT person_totp_secret_sealed
  CHECK (totp_secret ~ '^v1:[A-Za-z0-9_-]{8}:[A-Za-z0-9_-]+:[A-Za-z0-9_-]+:[A-Za-z0-9_-]+$');
ALTER TABLE person ADD CONSTRAINT person_totp_secret_once
  CHECK (totp_secret IS NULL OR totp_secret_unsealed IS NULL);

ALTER TABLE person_invitation ADD COLUMN totp_secret text
  CONSTRAINT person_invitation_totp_secret_sealed
  CHECK (totp_secret ~ '^v1:[A-Za-z0-9_-]{8}:[A-Za-z0-9_-]+:[A-Za-z0-9_-]+:[A-Za-z0-9_-]+$');

-- Down Migration

-- A sealed secret opens only with the key, which SQL does not hold: refuse rather than lose it.
DO $$
BEGIN
  IF EXISTS (SELECT FROM person WHERE totp_secret IS NOT NULL) THEN
    RAISE EXCEPTION 'second-factor secrets are sealed: an older Card Console cannot read them';
  END IF;
END
$$;
ALTER TABLE person_invitation DROP COLUMN totp_secret;
ALTER TABLE person DROP CONSTRAINT person_totp_secret_once;
ALTER TABLE person DROP CONSTRAINT person_totp_secret_sealed;
UPDATE person SET totp_secret = totp_secret_unsealed WHERE totp_secret_unsealed IS NOT NULL;
ALTER TABLE person DROP COLUMN totp_secret_unsealed;
