#!/bin/sh
# The roles of docs/operations/audit-trail.md ("PostgreSQL"), made once when PostgreSQL's data
# directory is first initialised (compose.yaml mounts this into the official image's
# /docker-entrypoint-initdb.d). The passwords come from the environment, never from this file.
set -eu
: "${CARD_CONSOLE_DB_OWNER_PASSWORD:?the schema owner's password (DATABASE_MIGRATION_URL)}"
: "${CARD_CONSOLE_DB_PASSWORD:?the BFF's password (DATABASE_URL)}"
psql -v ON_ERROR_STOP=1 --no-psqlrc --username "${POSTGRES_USER:-postgres}" --dbname postgres \
  --set=owner_password="$CARD_CONSOLE_DB_OWNER_PASSWORD" \
  --set=app_password="$CARD_CONSOLE_DB_PASSWORD" <<'SQL'
CREATE ROLE card_console_owner LOGIN PASSWORD :'owner_password';
CREATE DATABASE card_console OWNER card_console_owner;
CREATE ROLE card_console_audit_writer NOLOGIN;
CREATE ROLE card_console_index_writer NOLOGIN;
CREATE ROLE card_console LOGIN PASSWORD :'app_password';
GRANT card_console_audit_writer, card_console_index_writer TO card_console;
SQL
