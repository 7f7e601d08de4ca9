#!/bin/sh
# tests/pg/pg-severity.sh: PostgreSQL orders severities as the C registry does
# (include/aivet/severity.h), from the table aivet fills at migration: test-db's
# severity check (each name's rank, unknown names, ORDER BY) run against a
# server; the table holds the list, and the team reads it but cannot change it.
# test-db's portable statements (convert_from, IS DISTINCT FROM, ON CONFLICT DO
# NOTHING) run there too, as written, and db_ids fails on an error after a first row.
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/pg-lib.sh"

TEST_DB=$(dirname "$AIVET")/../tests/unit/test-db
pg_start
pg_login owner CREATEROLE
pg_login alice
pg_createdb team owner
URL=$(pg_url team owner)

"$TEST_DB" severity "$URL" > "$T/tap" 2>&1
is "$?:$(grep -c '^ok' "$T/tap"):$(grep -c '^not ok' "$T/tap")" "0:12:0" \
	"severity_rank() on the server agrees with the registry, and the SQL both stores accept runs as written: $(grep '^not ok' "$T/tap" | head -1)"
is "$(pg_sql -d team "SELECT string_agg(rank || '=' || name, ' ' ORDER BY rank) FROM aivet_severity")" \
	"0=info 1=low 2=medium 3=high 4=critical" "aivet_severity holds the registry's order"
run --db "$URL" db grant alice assessor
is "$(pg_psql_as alice team -c "DELETE FROM aivet_severity" 2>&1 | head -1)" \
	"ERROR:  permission denied for table aivet_severity" "a member cannot change the order"
is "$(pg_psql_as alice team -c "SELECT severity_rank('high')" 2>&1)" "3" "but reads it"
done_testing
