#!/bin/sh
# tests/pg/pg-schema.sh: the schema is evidence on PostgreSQL too. A database
# aivet's migrations made has exactly the schema lines db/pg/schema.expect
# holds (db/pg/schema-fingerprint.sql: tables, columns, constraints, indexes,
# triggers, rules, policies, views, functions, grants, owners); this test
# fails when that file is stale, and rewrites it from the tree when run with
# AIVET_UPDATE_SCHEMA=1. Then the owner changes the schema as an insider
# would (a trigger planted to rewrite findings, one dropped, a function
# replaced, a grant added, a rule, an owner changed), and each is named by
# 'audit verify' run by the auditor and refused by 'aivet report'.
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/pg-lib.sh"

pg_start
pg_login owner CREATEROLE
pg_login audrey
pg_createdb team owner
as() {
	_l=$1
	shift
	run --db "$(pg_url team "$_l")" "$@"
}
as owner vendor add Acme
as owner db grant audrey auditor
"$AIVET" --db "$(pg_url team owner)" key generate --no-password >/dev/null 2>&1
lines() { pg_psql_as audrey team -f "$TESTS_SRCDIR/../db/pg/schema-fingerprint.sql"; }
lines > "$T/schema"
if [ "${AIVET_UPDATE_SCHEMA:-}" = 1 ]; then
	cp "$T/schema" "$TESTS_SRCDIR/../db/pg/schema.expect"
fi
ok "$(test "$(wc -l < "$T/schema")" -ge 200; echo $?)" "(the fingerprint was read: $(wc -l < "$T/schema") lines)"
diff -u "$TESTS_SRCDIR/../db/pg/schema.expect" "$T/schema" > "$T/stale"
is "$?:$(head -c 2000 "$T/stale")" "0:" \
	"db/pg/schema.expect is the schema the migrations in the tree make (else: AIVET_UPDATE_SCHEMA=1 make check TESTS=tests/pg/pg-schema.sh)"
as audrey audit verify
is "$rc" 0 "the auditor verifies the database$errout"
pg_sql -d team "SELECT 1" >/dev/null

# change NAME SQL PROBLEM-PREFIX: SQL run by the owner, undone after.
change() {
	pg_psql_as owner team -c "BEGIN" -c "$2" -c "COMMIT" >/dev/null 2>"$T/err"
	ok "$(test ! -s "$T/err"; echo $?)" "$1: done by the owner$(cat "$T/err")"
	as audrey audit verify
	like "$rc:$errout" "^1:aivet: audit chain broken: the schema: $3" "$1: named by audit verify, run by the auditor"
	as owner report Acme --out "$T/r"
	like "$rc:$errout" "^1:aivet: this database failed its audit: the schema: $3" "$1: refused by aivet report"
	ok "$(test ! -e "$T/r"; echo $?)" "$1: no bundle"
	pg_psql_as owner team -c "BEGIN" -c "$4" -c "COMMIT" >/dev/null
	as audrey audit verify
	is "$rc" 0 "$1: undone, the database verifies again$errout"
}
change "a trigger planted on finding" "CREATE FUNCTION zz() RETURNS trigger LANGUAGE plpgsql AS \$\$ BEGIN
	UPDATE finding SET severity = 'info' WHERE id = NEW.id; RETURN NULL; END \$\$;
	CREATE TRIGGER zz AFTER INSERT ON finding FOR EACH ROW EXECUTE FUNCTION zz()" \
	"function zz\\(\\) owner \\(owner\\) .* is not in aivet's schema" "DROP TRIGGER zz ON finding; DROP FUNCTION zz()"
change "a trigger dropped" "DROP TRIGGER finding_no_update ON finding" \
	"trigger CREATE TRIGGER finding_no_update BEFORE UPDATE ON finding .* of aivet's schema is missing" \
	"CREATE TRIGGER finding_no_update BEFORE UPDATE ON finding FOR EACH ROW EXECUTE FUNCTION aivet_refuse('findings are immutable')"
change "a function rewritten" "CREATE OR REPLACE FUNCTION aivet_refuse() RETURNS trigger LANGUAGE plpgsql AS \$\$ BEGIN RETURN NEW; END \$\$" \
	"function aivet_refuse\\(\\) owner \\(owner\\) definer f .* (is not in|of) aivet's schema" \
	"$(pg_sql -d team "SELECT pg_get_functiondef('aivet_refuse()'::regprocedure)")"
change "a write granted" "GRANT UPDATE ON finding TO aivet_assessor" \
	"relation finding kind r owner \\(owner\\) rls f acl .* (is not in|of) aivet's schema" \
	"REVOKE UPDATE ON finding FROM aivet_assessor"
change "a rule rewriting inserts" "CREATE RULE quiet AS ON INSERT TO finding WHERE NEW.severity = 'critical' DO INSTEAD NOTHING" \
	"rule CREATE RULE quiet AS .* is not in aivet's schema" "DROP RULE quiet ON finding"
# The server seals rows with aivet_seal_rows(), which any write of the
# seals' parts rewrites: a part edited by the owner is a changed function.
change "a seal's parts edited" "UPDATE aivet_seal_part SET cols = 'id, run_id, probe, code, message, details' WHERE tbl = 'finding'" \
	"function aivet_seal_rows\\(text,bigint\\) owner \\(owner\\) definer f .* (is not in|of) aivet's schema" \
	"UPDATE aivet_seal_part SET cols = 'id, run_id, probe, code, severity, message, details' WHERE tbl = 'finding'"

done_testing
