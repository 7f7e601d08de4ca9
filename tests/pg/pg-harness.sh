#!/bin/sh
# tests/pg/pg-harness.sh: the throwaway PostgreSQL cluster of tests/lib/pg-lib.sh
# itself: it listens on its Unix socket only, runs unprivileged, takes
# logins and databases, answers at the URL aivet is given, and is stopped
# and removed when a test exits, even a failing one or one that is killed.

. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/pg-lib.sh"

pg_start
is "$(pg_sql 'SHOW listen_addresses')" "" "no TCP address is listened on"
is "$(pg_sql 'SHOW unix_socket_directories')" "$PG_SOCK" "the socket is in the test's directory"
ok "$([ -S "$PG_SOCK/.s.PGSQL.$PG_PORT" ] && echo 0 || echo 1)" "the socket file exists"
sock="$PG_SOCK/.s.PGSQL.$PG_PORT"
ok "$([ ${#sock} -lt 100 ] && echo 0 || echo 1)" "the socket path is under 100 bytes (${#sock})"
pid=$(head -1 "$PG_DATA/postmaster.pid")
is "$(ps -o user= -p "$pid" | tr -d ' ' | sed 's/^0$/root/')" \
	"$(if [ "$(id -u)" = 0 ]; then echo "$PG_RUNAS"; else id -un; fi)" \
	"the server runs as $( [ "$(id -u)" = 0 ] && echo "an unprivileged user" || echo "the test's user")"

pg_login owner CREATEROLE
pg_login alice
pg_createdb team owner
is "$(pg_sql "SELECT pg_get_userbyid(datdba) FROM pg_database WHERE datname = 'team'")" owner \
	"the database is owned by the given login"
url=$(pg_url team alice)
is "$url" "postgresql:///team?host=$PG_SOCK&port=$PG_PORT&user=alice" "the URL names the database, socket and login"
is "$("$PG_PSQL" -X -At "$url" -c 'SELECT session_user, current_database()')" "alice|team" \
	"a client at the URL is that login on that database"
"$PG_PSQL" -X -At "postgresql:///team?host=$PG_SOCK&port=$PG_PORT&user=nobody_here" -c 'SELECT 1' \
	>/dev/null 2>"$T/err" && rc=0 || rc=$?
is "$rc" 2 "an unknown login is refused"
like "$(cat "$T/err")" 'role "nobody_here" does not exist' "the refusal names the login"
is "$(pg_psql_as alice team -c 'SELECT has_database_privilege(current_user, current_database(), $$CREATE$$)')" f \
	"a plain login cannot create in another's database"

# tests/lib/pg-bin/sqlite3: a query reads an SQLite copy of the database, kept
# beside the socket while the server's snapshot stands. A second query with
# nothing written between reads the kept copy, as does one while a write is in
# progress, which it does not see; once that commits, the next query copies
# anew and sees it.
ourl=$(pg_url team owner)
"$AIVET" --db "$ourl" vendor add A >/dev/null
shim() { PATH=$TESTS_SRCDIR/lib/pg-bin:$PATH sqlite3 "$ourl" "$1"; }
kept() { (cd "$PG_SOCK" && ls sqlite3-copy.*); }
is "$(shim "SELECT group_concat(name) || ' ' || coalesce(notes, '-') FROM vendor")" "A -" \
	"a query reads the database through a copy"
k1=$(kept)
is "$(shim "SELECT count(*) FROM vendor")" 1 "a second query, nothing written between"
is "$(kept)" "$k1" "reads the one kept copy"
mkfifo "$T/in"
"$PG_PSQL" -X -q -At -v ON_ERROR_STOP=1 "$ourl" <"$T/in" >/dev/null 2>&1 &
exec 7>"$T/in"
echo "BEGIN; UPDATE vendor SET notes = 'seen' WHERE name = 'A';" >&7
# Until its update has taken a transaction id, the write has not begun.
i=0
while [ "$(pg_sql "SELECT count(*) FROM pg_stat_activity WHERE usename = 'owner' AND backend_xid IS NOT NULL")" = 0 ] &&
	[ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
is "$(shim "SELECT coalesce(notes, '-') FROM vendor")" - "a write in progress is not seen"
is "$(kept)" "$k1" "from the kept copy: until a transaction ends, what a query sees is the same"
# Its entry, as aivet writes one (the chain's lock held to commit), so that the copy verifies.
echo "SELECT aivet_audit_append('2026-11-30T09:00:00.000Z', 'vendor.edit', 'vendor', 1, '{\"notes\":\"seen\"}');" >&7
echo "COMMIT;" >&7
exec 7>&-
wait
is "$(shim "SELECT coalesce(notes, '-') FROM vendor")" seen "once committed, the next query sees it"
is "$(kept | grep -c .) $([ "$(kept)" != "$k1" ] && echo anew)" "1 anew" "from a new copy, in place of the old one"

# A test that fails, and one killed by a signal, still stop their cluster.
cat >"$T/inner.sh" <<'EOF'
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/pg-lib.sh"
pg_start
echo "$PG_DATA $(head -1 "$PG_DATA/postmaster.pid")" >"$OUTER/inner.info"
[ "${INNER_MODE:-}" = kill ] && { kill -TERM $$; sleep 30; }
exit 1
EOF
for mode in fail kill; do
	rm -f "$T/inner.info"
	OUTER=$T INNER_MODE=$mode TESTS_SRCDIR=$TESTS_SRCDIR sh "$T/inner.sh" >/dev/null 2>&1 && irc=0 || irc=$?
	read -r idata ipid <"$T/inner.info"
	ok "$([ "$irc" != 0 ] && [ -n "$ipid" ] && echo 0 || echo 1)" "$mode: the inner test ran its cluster (pid $ipid) and exited $irc"
	# A zombie has stopped: only its parent (init here) has yet to reap it.
	st=$(ps -o stat= -p "$ipid" 2>/dev/null | cut -c1)
	ok "$([ -z "$st" ] || [ "$st" = Z ] && echo 0 || echo 1)" "$mode: its server is stopped"
	ok "$([ -e "$idata" ] && echo 1 || echo 0)" "$mode: its directory is removed"
done

done_testing
