# tests/lib/lib.sh: shared helpers for aivet's shell tests. Each test is a TAP
# producer run by Automake's tap-driver.sh; every test gets its own
# temporary HOME, XDG directories and database, removed on exit.

set -u
: "${AIVET:?AIVET must point at the built aivet binary}"
TESTS_SRCDIR=${TESTS_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
T=$(mktemp -d "${TMPDIR:-/tmp}/aivet-test.XXXXXX")
_cleanup_hooks=""
_cleanup() {
	for h in $_cleanup_hooks; do "$h"; done
	rm -rf "$T"
}
trap _cleanup EXIT
export HOME="$T/home" XDG_DATA_HOME="$T/data" XDG_CONFIG_HOME="$T/config" XDG_STATE_HOME="$T/state"
mkdir -p "$HOME"
export AIVET_DB="$T/aivet.db" AIVET_ACTOR=tester
unset AIVET_NOW NO_COLOR
export LC_ALL=C.UTF-8

_n=0
_failed=0
ok() {
	_n=$((_n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $_n - $2"
	else
		echo "not ok $_n - $2"
		_failed=$((_failed + 1))
	fi
}
# is GOT WANT DESCRIPTION
is() {
	if [ "$1" = "$2" ]; then ok 0 "$3"; else
		ok 1 "$3"
		printf '%s\n' "#   got:  $1" "#   want: $2" | head -40
	fi
}
# like TEXT PATTERN DESCRIPTION (grep -E)
like() {
	if printf '%s' "$1" | grep -qE -- "$2"; then ok 0 "$3"; else
		ok 1 "$3"
		printf '%s\n' "#   text: $1" "#   does not match: $2" | head -40
	fi
}
unlike() {
	if printf '%s' "$1" | grep -qE -- "$2"; then
		ok 1 "$3"
		printf '%s\n' "#   text: $1" "#   matches: $2" | head -40
	else ok 0 "$3"; fi
}
# skip REASON: one test skipped, with the reason (TAP "# SKIP"), for a
# condition the machine could not give (never a pass in disguise).
skip() {
	_n=$((_n + 1))
	echo "ok $_n # SKIP $1"
}
done_testing() {
	echo "1..$_n"
	[ "$_failed" = 0 ]
}

# run CMD...: runs aivet, capturing stdout in $out, stderr in $errout, status in $rc.
run() {
	out=$("$AIVET" "$@" 2>"$T/stderr") && rc=0 || rc=$?
	errout=$(cat "$T/stderr")
}

# json FILTER: reads JSON on stdin with jq, raw output.
json() {
	jq -r "$1"
}

# tree_files, tree_grep: the tracked source files, for the checks that read the tree.
. "$TESTS_SRCDIR/lib/tree-lib.sh"

# db_snapshot: a dump of every row, to prove a failed command changed nothing.
db_snapshot() {
	sqlite3 "$AIVET_DB" .dump 2>/dev/null | md5sum
}

# db_seal: seals the rows the test wrote with SQL, as aivet's writers would have
# (tests/lib/seal-rows.py); on a server through an SQLite copy, copied back whole.
# The first copy exits 1, having copied everything, when the rows written with
# SQL break the chain (the very rows to seal); the copy back must verify.
db_seal() {
	if [ "${AIVET_TEST_BACKEND:-sqlite}" = pg ]; then
		rm -f "$T/seal.db"
		"$AIVET" db copy "$AIVET_DB" "$T/seal.db" >/dev/null
		[ $? -le 1 ] && [ -f "$T/seal.db" ] &&
		python3 "$TESTS_SRCDIR/lib/seal-rows.py" "$T/seal.db" && db_fresh &&
		"$AIVET" db copy "$T/seal.db" "$AIVET_DB" >/dev/null
	else
		python3 "$TESTS_SRCDIR/lib/seal-rows.py" "$AIVET_DB"
	fi
}

# db_fresh: an empty database in place of the test's one.
db_fresh() {
	rm -f "$AIVET_DB" "$AIVET_DB-wal" "$AIVET_DB-shm"
}

# approver_key NAME [GLOBAL-OPTION...]: NAME's own key (unencrypted, named NAME)
# made and registered to NAME: what an approval by NAME is signed with.
approver_key() {
	_k=$1
	shift
	"$AIVET" key generate --no-password --name "$_k" >/dev/null 2>&1
	if [ $# -eq 0 ] && [ "${AIVET_TEST_BACKEND:-sqlite}" = pg ]; then
		# On a server the key is registered to the login of that name.
		run --actor "$_k" key register "$_k"
	else
		"$AIVET" "$@" --actor "$_k" key register "$_k" >/dev/null
	fi
}

# actor_env NAME: the environment in which NAME runs aivet (for tui_start's TUI_ENV).
actor_env() {
	echo "AIVET_ACTOR='$1'"
}

# AIVET_TEST_BACKEND=pg: the test runs against a fresh database on a throwaway
# PostgreSQL cluster (tests/lib/pg-lib.sh) instead of an SQLite file.
if [ "${AIVET_TEST_BACKEND:-sqlite}" = pg ]; then
	. "$TESTS_SRCDIR/lib/pg-lib.sh"
	pg_start
	# On a server the actor is the login: the test's actor owns its database
	# (and may create aivet's roles when it migrates it).
	pg_login "$AIVET_ACTOR" CREATEROLE >/dev/null
	pg_createdb aivet "$AIVET_ACTOR"
	AIVET_DB=$(pg_url aivet "$AIVET_ACTOR")
	# The tests' own look at the database ("sqlite3 $AIVET_DB SQL") goes to psql.
	PATH=$TESTS_SRCDIR/lib/pg-bin:$PATH
	export AIVET_DB PATH
	# Every row of every table, each table's rows in one order, as one digest:
	# what the .dump above would compare (the sequences' positions aside), read
	# in one psql session, where pg_dump reads the catalogs anew each time.
	db_snapshot() {
		"$PG_PSQL" -X -q -At -v ON_ERROR_STOP=1 "$AIVET_DB" 2>/dev/null <<'EOF' | md5sum
SELECT format('SELECT %L, count(*), md5(coalesce(string_agg(t::text, E''\n'' ORDER BY t::text), '''')) FROM %s t',
    c.oid::regclass, c.oid::regclass)
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE c.relkind = 'r' AND n.nspname <> 'information_schema' AND n.nspname NOT LIKE 'pg\_%'
ORDER BY 1 \gexec
EOF
	}
	db_fresh() {
		pg_sql "DROP DATABASE aivet WITH (FORCE)" >/dev/null && pg_createdb aivet "$AIVET_ACTOR"
	}
	# actor_env NAME: the environment in which NAME runs aivet (tui_start's
	# TUI_ENV): on a server, connected as a login of that name, a reviewer.
	actor_env() {
		[ "$(pg_sql "SELECT count(*) FROM pg_roles WHERE rolname = '$1'")" = 1 ] ||
			pg_sql "CREATE ROLE \"$1\" LOGIN IN ROLE aivet_reviewer" >/dev/null
		echo "AIVET_ACTOR='$1' AIVET_DB='$(pg_url aivet "$1")'"
	}
	# "run --actor NAME ...": on a server the actor is the login, so NAME acts
	# as a login of that name (created when first named, a reviewer), as that
	# person would.
	run() {
		if [ "${1:-}" = --actor ] && [ "$2" != "$AIVET_ACTOR" ]; then
			[ "$(pg_sql "SELECT count(*) FROM pg_roles WHERE rolname = '$2'")" = 1 ] ||
				pg_sql "CREATE ROLE \"$2\" LOGIN IN ROLE aivet_reviewer" >/dev/null
			set -- --db "$(pg_url aivet "$2")" "$@"
		fi
		out=$("$AIVET" "$@" 2>"$T/stderr") && rc=0 || rc=$?
		errout=$(cat "$T/stderr")
	}
fi
