#!/bin/sh
# tests/pg/pg-readme.sh: the README's local PostgreSQL server, as written. The
# first sh block of "A team on PostgreSQL" is read from README.md and run on
# the test's throwaway cluster (tests/lib/pg-lib.sh) instead of Debian's
# "15 main": pg_ctlcluster is the cluster pg_start started, "su postgres -c"
# runs its commands as the cluster's superuser, and the URL's socket is the
# cluster's, with the login named (the throwaway cluster trusts, where
# Debian's knows the Unix user). Everything else runs as the README has it.
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/pg-lib.sh"

block=$(awk '/^## A team on PostgreSQL/ { sec = 1 } sec && /^```sh$/ { on = 1; next }
    on && /^```$/ { exit } on { print }' "$TESTS_SRCDIR/../README.md")
# Each line the test stands in for is there, once, as the README gives it.
for want in "pg_ctlcluster 15 main start" "su postgres -c 'createuser --createrole alice && createdb --owner alice aivet'" \
    "export AIVET_DB='postgresql:///aivet?host=/run/postgresql'" "aivet db whoami" "aivet worker --once"; do
	is "$(printf '%s\n' "$block" | grep -cF -- "$want")" 1 "the README's block has: $want"
done

pg_start
mkdir -p "$T/bin"
# aivet as the README calls it, on PATH.
ln -s "$AIVET" "$T/bin/aivet"
script=$(printf '%s\n' "$block" | sed -e 's/^pg_ctlcluster 15 main start/:/' \
    -e "s/^su postgres -c /PGHOST='$(echo "$PG_SOCK" | sed 's/[\/&]/\\&/g')' PGPORT=$PG_PORT PGUSER=$PG_SUPER sh -c /" \
    -e "s|host=/run/postgresql|host=$PG_SOCK\\&user=alice|")
PATH=$T/bin:$PATH sh -ec "$script" >"$T/out" 2>"$T/err" && rc=0 || rc=$?
is "$rc" 0 "the block runs to its end"
is "$(cat "$T/err")" "" "nothing on stderr"
is "$(cat "$T/out")" "login     alice
backend   postgresql
owner     yes
roles     -
may       everything (owner)
vendor Acme AI added (id 1)" "whoami: alice owns the database on PostgreSQL; the vendor is added; the worker found nothing queued"
# The database was migrated on first use, and the vendor is on the server.
is "$(pg_sql -d aivet "SELECT name FROM vendor")" "Acme AI" "the vendor is a row of the server's database"
is "$(pg_sql -d aivet "SELECT string_agg(rolname, ' ' ORDER BY rolname) FROM pg_roles WHERE rolname LIKE 'aivet\\_%'")" \
    "aivet_assessor aivet_auditor aivet_reviewer" "aivet's roles were made on first use, by alice (--createrole)"
done_testing
