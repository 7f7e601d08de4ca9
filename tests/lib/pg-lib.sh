# tests/lib/pg-lib.sh: a throwaway PostgreSQL cluster for one shell test.
# Source after lib.sh. pg_start runs initdb and pg_ctl in the test's private
# directory ($T), listening only on a Unix socket there (no TCP port is
# opened, so parallel tests never collide), with trust authentication; the
# cluster is stopped and removed when the test exits, pass or fail. When the
# tools are missing the whole test is skipped with a TAP "1..0 # SKIP".
#
# PostgreSQL refuses to run as root, so under root initdb and the server
# run as an unprivileged user ($AIVET_PG_USER, else Debian's "postgres",
# else "nobody") through runuser or setpriv; the cluster's directory is
# given to that user and $T is opened for traversal only.
#
#   pg_start                  init and start; sets PG_SOCK (socket directory)
#   pg_sql [-d DB] SQL        run SQL as the cluster's superuser, rows on stdout
#   pg_login NAME [ATTR...]   CREATE ROLE NAME LOGIN ATTR... (e.g. CREATEROLE)
#   pg_createdb DB [OWNER]    a database, owned by OWNER when given
#   pg_url DB LOGIN           postgresql:///DB?host=PG_SOCK&user=LOGIN
#   pg_skip_all REASON        print the TAP skip plan and exit 0

PG_SUPER=pgsuper
PG_PORT=5432

pg_skip_all() {
	echo "1..0 # SKIP $1"
	exit 0
}

# pg_find_bindir: the directory holding initdb and pg_ctl, newest version
# first when several Debian packages are installed side by side.
pg_find_bindir() {
	if [ -n "${AIVET_PG_BINDIR:-}" ]; then
		[ -x "$AIVET_PG_BINDIR/initdb" ] && echo "$AIVET_PG_BINDIR"
		return
	fi
	for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -t/ -k5 -rn); do
		if [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ]; then echo "$d"; return; fi
	done
	d=$(command -v initdb 2>/dev/null) && [ -x "$(dirname "$d")/pg_ctl" ] && dirname "$d"
}

PG_BIN=$(pg_find_bindir)
[ -n "$PG_BIN" ] || pg_skip_all "no PostgreSQL server (initdb, pg_ctl) installed"
PG_PSQL=$PG_BIN/psql
[ -x "$PG_PSQL" ] || PG_PSQL=$(command -v psql 2>/dev/null) || pg_skip_all "no psql"

# pg_as CMD...: runs CMD as the cluster's owner (the unprivileged user under root).
PG_RUNAS=""
if [ "$(id -u)" = 0 ]; then
	for u in ${AIVET_PG_USER:-} postgres nobody; do
		if id -u "$u" >/dev/null 2>&1 && [ "$(id -u "$u")" != 0 ]; then PG_RUNAS=$u; break; fi
	done
	[ -n "$PG_RUNAS" ] || pg_skip_all "running as root and no unprivileged user for PostgreSQL"
	command -v runuser >/dev/null 2>&1 || command -v setpriv >/dev/null 2>&1 ||
		pg_skip_all "running as root without runuser or setpriv"
fi
pg_as() {
	if [ -z "$PG_RUNAS" ]; then
		"$@"
	elif command -v runuser >/dev/null 2>&1; then
		runuser -u "$PG_RUNAS" -- "$@"
	else
		setpriv --reuid="$PG_RUNAS" --regid="$(id -g "$PG_RUNAS")" --init-groups -- "$@"
	fi
}

# The cluster lives in $T/pg unless the socket's path would pass the 107-byte
# limit of sun_path (kept under 100) or the unprivileged user cannot reach
# $T; then in a short directory of its own under /tmp, removed all the same.
# Sourced twice (lib.sh with AIVET_TEST_BACKEND=pg, then a test), one cluster.
_pg_dir=${_pg_dir:-}
_pg_own_dir=${_pg_own_dir:-}
pg_start() {
	[ -z "$_pg_dir" ] || return 0
	_pg_dir=$T/pg
	if [ -n "$PG_RUNAS" ]; then chmod 711 "$T"; fi
	mkdir -p "$_pg_dir"
	if [ -n "$PG_RUNAS" ]; then chown "$PG_RUNAS" "$_pg_dir"; fi
	if [ ${#_pg_dir} -gt 80 ] || ! pg_as test -w "$_pg_dir"; then
		rm -rf "$_pg_dir"
		_pg_dir=$(mktemp -d /tmp/aivet-pg.XXXXXX)
		_pg_own_dir=$_pg_dir
		if [ -n "$PG_RUNAS" ]; then chown "$PG_RUNAS" "$_pg_dir"; fi
	fi
	chmod 700 "$_pg_dir"
	PG_SOCK=$_pg_dir
	PG_DATA=$_pg_dir/data
	_cleanup_hooks="pg_stop $_cleanup_hooks"
	# dash and sh run the EXIT trap only on a normal exit: turn signals into one.
	trap 'exit 130' INT
	trap 'exit 143' TERM
	trap 'exit 129' HUP
	if ! pg_as "$PG_BIN/initdb" -D "$PG_DATA" -U "$PG_SUPER" -A trust -E UTF8 --locale=C.UTF-8 \
		--no-sync >"$_pg_dir/initdb.log" 2>&1; then
		sed 's/^/# initdb: /' "$_pg_dir/initdb.log" | tail -20
		echo "Bail out! initdb failed"
		exit 99
	fi
	# Throwaway data: no durability, small memory, enough connections for
	# the concurrency tests, and nothing listening on TCP.
	pg_as sh -c "cat >>'$PG_DATA/postgresql.conf'" <<EOF
listen_addresses = ''
unix_socket_directories = '$PG_SOCK'
unix_socket_permissions = 0777
port = $PG_PORT
max_connections = ${AIVET_PG_MAX_CONNECTIONS:-120}
shared_buffers = 16MB
fsync = ${AIVET_PG_FSYNC:-off}
synchronous_commit = ${AIVET_PG_FSYNC:-off}
full_page_writes = ${AIVET_PG_FSYNC:-off}
log_min_messages = warning
EOF
	if ! pg_as "$PG_BIN/pg_ctl" -D "$PG_DATA" -l "$_pg_dir/server.log" -w -t 60 start >/dev/null 2>&1; then
		sed 's/^/# server: /' "$_pg_dir/server.log" | tail -20
		echo "Bail out! the PostgreSQL server did not start"
		exit 99
	fi
}

pg_stop() {
	[ -n "$_pg_dir" ] || return 0
	if [ -f "$PG_DATA/postmaster.pid" ]; then
		_pid=$(head -1 "$PG_DATA/postmaster.pid")
		pg_as "$PG_BIN/pg_ctl" -D "$PG_DATA" -m immediate -w -t 30 stop >/dev/null 2>&1 || true
		# pg_ctl returns once the pid file is gone, a moment before the
		# process is: wait for it so nothing outlives the test.
		_k=0
		while [ "$_k" -lt 100 ] && kill -0 "$_pid" 2>/dev/null &&
			[ "$(ps -o stat= -p "$_pid" 2>/dev/null | cut -c1)" != Z ]; do
			sleep 0.1
			_k=$((_k + 1))
		done
	fi
	rm -rf "$_pg_dir"
	[ -z "$_pg_own_dir" ] || rm -rf "$_pg_own_dir"
	_pg_dir=""
}

# pg_sql [-d DB] SQL: unaligned, tuples only, stops on the first error.
pg_sql() {
	_db=postgres
	if [ "$1" = -d ]; then _db=$2; shift 2; fi
	"$PG_PSQL" -X -q -At -v ON_ERROR_STOP=1 -h "$PG_SOCK" -p "$PG_PORT" -U "$PG_SUPER" -d "$_db" -c "$1"
}

# pg_psql_as LOGIN DB [psql args...]: psql as a login, for tests that act
# on the database beside aivet (e.g. an attempt to edit the audit trail).
pg_psql_as() {
	_login=$1 _db=$2
	shift 2
	"$PG_PSQL" -X -q -At -v ON_ERROR_STOP=1 -h "$PG_SOCK" -p "$PG_PORT" -U "$_login" -d "$_db" "$@"
}

pg_login() {
	_name=$1
	shift
	pg_sql "CREATE ROLE \"$_name\" LOGIN $*"
}

pg_createdb() {
	if [ $# -ge 2 ]; then
		pg_sql "CREATE DATABASE \"$1\" OWNER \"$2\""
	else
		pg_sql "CREATE DATABASE \"$1\""
	fi
}

pg_url() {
	echo "postgresql:///$1?host=$PG_SOCK&port=$PG_PORT&user=$2"
}
