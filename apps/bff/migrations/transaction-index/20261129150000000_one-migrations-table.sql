-- Every set's migrations are recorded in card_console_migrations (apps/bff/src/platform/sql/
-- migrations.ts); builds before it kept the audit trail's in pgmigrations and the index's in
-- index_migrations, which its runner moved here. Under those names, views of this table: an
-- older build started on this database reads there a migration newer than any it knows (this
-- one) and refuses the database, where finding no table it would take the schema for missing
-- and apply its migrations again. Nothing writes through them.

-- Up Migration

CREATE VIEW pgmigrations AS SELECT id, name, run_on FROM card_console_migrations;
CREATE VIEW index_migrations AS SELECT id, name, run_on FROM card_console_migrations;

GRANT SELECT ON index_migrations TO card_console_index_writer;
-- The audit trail's role exists on PostgreSQL only (the embedded engine's trail is a file).
DO $$
BEGIN
  IF EXISTS (SELECT FROM pg_roles WHERE rolname = 'card_console_audit_writer') THEN
    GRANT SELECT ON pgmigrations TO card_console_audit_writer;
  END IF;
END
$$;
