-- The close policy's version (decision 0116): up by one with every change, and a change names the
-- version it was made on, so an admin's save made on a policy another admin has changed since is
-- refused (409 `close_policy_changed`) instead of putting back what that admin replaced. The
-- default policy (no row) is version 0; a policy an older build saved is version 1.

-- Up Migration

ALTER TABLE close_policy ADD COLUMN version integer NOT NULL DEFAULT 1 CHECK (version > 0);

-- Down Migration

ALTER TABLE close_policy DROP COLUMN version;
