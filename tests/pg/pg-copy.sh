#!/bin/sh
# tests/pg/pg-copy.sh: a whole database moved from SQLite to PostgreSQL and
# back with 'aivet db copy': every row of every table comes back the same
# (ids, stored bytes, the final round, the audit chain), 'audit verify'
# gives the same head on all three, new rows on the server take ids past
# the copied ones, a server database that holds anything is refused, and
# only the database's owner can restore a chain written by other people.
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/pg-lib.sh"
. "$TESTS_SRCDIR/lib/sim-lib.sh"
. "$TESTS_SRCDIR/lib/db-fixture.sh"

pg_start
pg_login owner CREATEROLE
pg_login alice
pg_createdb team owner
pg_createdb other owner
PG=$(pg_url team owner)

fixture_build
ok $? "an SQLite database with rows in every table"
entries=$(sqlite3 "$AIVET_DB" 'SELECT count(*) FROM audit_log')
head=$("$AIVET" audit verify | sed -n 's/.*head //p')

run db copy "$AIVET_DB" "$PG" --json
is "$rc" 0 "SQLite to PostgreSQL$errout"
is "$(printf '%s' "$out" | jq -r '[.audit_ok, .audit_entries, .audit_head] | map(tostring) | join(" ")')" \
	"true $entries $head" "the copy's chain verifies to the source's head"
for tk in $FIXTURE_TABLES; do
	t=${tk%%:*}
	want=$(sqlite3 "$AIVET_DB" "SELECT count(*) FROM $t")
	got=$(pg_sql -d team "SELECT count(*) FROM $t")
	[ "$got" = "$want" ] || echo "# $t: $got rows on the server, $want in the file"
	printf '%s\n' "$t=$got" >>"$T/counts.pg"
	printf '%s\n' "$t=$want" >>"$T/counts.lite"
done
is "$(cat "$T/counts.pg")" "$(cat "$T/counts.lite")" "every table has the same number of rows"
# The copy ends with the planner's statistics gathered (ANALYZE): a table's
# row count is known (reltuples is -1 on a table never analyzed).
is "$(pg_sql -d team "SELECT reltuples::bigint FROM pg_class WHERE relname = 'audit_log' AND relkind = 'r'")" \
	"$entries" "the copy is analyzed: audit_log's $entries rows are known to the planner"
run --db "$PG" audit verify
is "$rc:$out" "0:audit chain intact: $entries entries, head $head" "audit verify on PostgreSQL: the same head"
is "$(pg_sql -d team "SELECT status || ' ' || reviewer FROM assessment WHERE id = 1")" "final rita" \
	"the final round is final on the server"
is "$(pg_sql -d team "SELECT encode(data, 'escape') FROM blob b JOIN evidence e ON e.sha256 = b.sha256 WHERE e.original_name = 'soc2.txt'")" \
	"SOC 2 report" "stored content keeps its bytes"
run --db "$PG" vendor add W
is "$out" "vendor W added (id 2)" "a new vendor on the server takes the next id"
run --db "$PG" incident note 1 "after the move"
like "$out" "^incident 1: entry [0-9]+ recorded" "so does a new timeline entry"
is "$(pg_sql -d team "SELECT max(id) FROM incident_entry")" \
	"$(($(sqlite3 "$AIVET_DB" 'SELECT max(id) FROM incident_entry') + 1))" "past the copied ids"
run --db "$PG" audit verify
is "$rc" 0 "the chain grows on from the copied head$errout"
run --db "$PG" audit verify --against "$T/report" --json
is "$rc:$(printf '%s' "$out" | jq -r '.intact')" "0:true" \
	"the report signed on SQLite still anchors the chain on the server$errout"

snap=$(pg_sql -d team "SELECT count(*) FROM audit_log")
run db copy "$AIVET_DB" "$PG"
is "$rc" 2 "a server database with rows is refused (exit 2)"
like "$errout" "^aivet: the destination is not empty \(2 vendor, .*\): db copy only fills an empty database; nothing was copied$" \
	"naming what it holds"
is "$(pg_sql -d team "SELECT count(*) FROM audit_log")" "$snap" "and it is left as it was"

# Back to SQLite: the copy of the copy is the original, row for row.
run db copy "$PG" "$T/back.db"
is "$rc" 0 "PostgreSQL to SQLite$errout"
run --db "$T/back.db" audit verify
is "$rc" 0 "the file's chain verifies$errout"
heads_back=$(printf '%s' "$out" | sed -n 's/.*head //p')
run --db "$PG" audit verify
is "$heads_back" "$(printf '%s' "$out" | sed -n 's/.*head //p')" "with the server's head"
# The original plus the two rows written on the server, then compared table by table.
for tk in $FIXTURE_TABLES; do
	t=${tk%%:*}
	case $t in vendor|incident_entry|audit_log) continue ;; esac
	echo "$tk"
done >"$T/same"
same=$(while read -r tk; do
	t=${tk%%:*}
	if [ "$t" = blob ]; then q="SELECT sha256, size, encrypted, hex(data), typeof(data) FROM blob ORDER BY sha256"
	else q="SELECT * FROM $t ORDER BY ${tk#*:}"; fi
	[ "$(sqlite3 -quote "$AIVET_DB" "$q" | md5sum)" = "$(sqlite3 -quote "$T/back.db" "$q" | md5sum)" ] || echo "$t differs"
done <"$T/same")
is "$same" "" "every table comes back row for row, values and types (blobs as bytes)"
is "$(sqlite3 -quote "$T/back.db" "SELECT * FROM vendor WHERE id = 1; SELECT * FROM audit_log WHERE seq <= $entries")" \
	"$(sqlite3 -quote "$AIVET_DB" "SELECT * FROM vendor WHERE id = 1; SELECT * FROM audit_log WHERE seq <= $entries")" \
	"the vendor and the copied chain too"
is "$(sqlite3 "$T/back.db" "SELECT name FROM vendor WHERE id = 2")" "W" "with what was added on the server"

# Only the owner restores a chain written by others: alice cannot, even with
# every privilege on the tables a reviewer has (roles hold on every database
# of the server; the other one is migrated, and empty).
run --db "$PG" db grant alice reviewer
run --db "$(pg_url other owner)" vendor list
run db copy "$AIVET_DB" "$(pg_url other alice)"
is "$rc" 2 "a copy by a non-owner is refused (exit 2)"
is "$errout" "aivet: db copy into a PostgreSQL database is for its owner: alice is not it; nothing was copied" \
	"the copied entries name other logins"
is "$(pg_sql -d other "SELECT count(*) FROM vendor")" 0 "nothing was copied"
pg_psql_as alice other -c "SET aivet.restore = 'on'" -c "INSERT INTO audit_log (seq, at, actor, action, object_type, object_id, details, prev_hash, entry_hash) VALUES (2, 'x', 'mallory', 'x', 'x', 1, '{}', 'x', 'x')" \
	>/dev/null 2>"$T/err"
like "$(cat "$T/err")" "permission denied for table audit_log" \
	"the restore setting gains anyone but the owner nothing: the roles write no audit entry directly"

sim_stop
done_testing
