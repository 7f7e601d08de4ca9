#!/bin/sh
# tests/pg/pg-ids.sh: a new row's id on PostgreSQL is the row's own. A trigger
# that inserts into another table (an organisation's own change log, with
# its own sequence) runs inside each INSERT aivet makes; the ids aivet
# prints, writes in the audit log and links other rows to are still those
# of the vendor, endpoint and incident it added, as on SQLite, and the chain
# verifies once those triggers, which are not aivet's schema, are gone. With
# lastval() they would be the change log's.
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/pg-lib.sh"

pg_start
pg_login owner CREATEROLE
pg_createdb team owner
URL=$(pg_url team owner)
as() { run --db "$URL" "$@"; }

as vendor list
is "$rc" 0 "a fresh database is set up$errout"
# The change log's ids start far from aivet's, so a mix-up shows.
pg_sql -d team "CREATE SCHEMA changes;
CREATE TABLE changes.entry (id bigint GENERATED ALWAYS AS IDENTITY (START WITH 500) PRIMARY KEY,
	tbl text NOT NULL, row_id bigint NOT NULL);
CREATE FUNCTION changes.note() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
	SET search_path = changes, pg_catalog AS \$\$
BEGIN
	INSERT INTO changes.entry (tbl, row_id) VALUES (TG_TABLE_NAME, NEW.id);
	RETURN NULL;
END \$\$;
CREATE TRIGGER note AFTER INSERT ON vendor FOR EACH ROW EXECUTE FUNCTION changes.note();
CREATE TRIGGER note AFTER INSERT ON endpoint FOR EACH ROW EXECUTE FUNCTION changes.note();
CREATE TRIGGER note AFTER INSERT ON incident FOR EACH ROW EXECUTE FUNCTION changes.note();"
ok $? "a trigger on vendor, endpoint and incident inserts into a table of its own"

as vendor add Acme
is "$out" "vendor Acme added (id 1)" "vendor add reports the vendor's id$errout"
as vendor add Beta
is "$out" "vendor Beta added (id 2)" "and the next one's"
as endpoint add Beta --name chat --api openai --url https://beta.example/v1 --model m --context 8192
is "$out" "endpoint Beta/chat added (id 1, 0 credentials)" "endpoint add reports the endpoint's id$errout"
AIVET_NOW=2026-03-02T14:00:00.000Z as incident open Beta --title t --endpoint Beta/chat
is "$out" "incident 1 opened for vendor Beta (discovered 2026-03-02T14:00:00.000Z)" \
	"incident open reports the incident's id$errout"
is "$(pg_sql -d team "SELECT string_agg(tbl || ':' || row_id || '@' || id, ' ' ORDER BY id) FROM changes.entry")" \
	"vendor:1@500 vendor:2@501 endpoint:1@502 incident:1@503" "the trigger ran for each row, taking ids of its own"
is "$(pg_sql -d team "SELECT string_agg(action || ':' || object_id, ' ' ORDER BY seq) FROM audit_log
	WHERE action IN ('vendor.add', 'endpoint.add', 'incident.open')")" \
	"vendor.add:1 vendor.add:2 endpoint.add:1 incident.open:1" "the audit log names the rows added"
is "$(pg_sql -d team "SELECT e.vendor_id || ' ' || i.vendor_id FROM endpoint e, incident i")" "2 2" \
	"the endpoint and the incident belong to the vendor added"
# The organisation's triggers are not aivet's schema: the schema check names them
# (a trigger on aivet's tables could as well rewrite what they hold).
as audit verify
like "$rc:$errout" "^1:aivet: audit chain broken: the schema: trigger CREATE TRIGGER note AFTER INSERT ON endpoint .* is not in aivet's schema" \
	"a trigger of the organisation's on aivet's tables is named by the schema check"
pg_sql -d team "DROP TRIGGER note ON vendor; DROP TRIGGER note ON endpoint; DROP TRIGGER note ON incident"
as audit verify
is "$rc" 0 "with them gone, the chain and its rows verify$errout"
done_testing
