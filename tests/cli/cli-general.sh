#!/bin/sh
# cli-general.sh: the global command line — version, help, exit codes,
# where the database lives and how it is protected, the actor, and the
# refusal of a database from a newer aivet.
. "$TESTS_SRCDIR/lib/lib.sh"

run --version
is "$out" "aivet $(sed -n 's/^AC_INIT(\[aivet\], \[\([^]]*\)\].*/\1/p' "$TESTS_SRCDIR/../configure.ac")" "--version is AC_INIT's"
run --help
is "$rc" 0 "--help exits 0"
like "$out" "vendor +manage the vendors under review" "--help lists commands"
run frobnicate
is "$rc" 2 "unknown command exits 2"
is "$errout" "aivet: unknown command 'frobnicate' (see 'aivet --help')" "unknown command message"
run --bogus
is "$rc" 2 "unknown global option exits 2"

# No terminal: the TUI refuses and points at the CLI.
out=$("$AIVET" </dev/null 2>&1) && rc=0 || rc=$?
is "$rc" 2 "aivet without a terminal exits 2"
is "$out" "aivet: the terminal UI needs a terminal; use the CLI instead (see 'aivet --help')" "no-terminal message"
out=$("$AIVET" tui </dev/null 2>&1) && rc=0 || rc=$?
is "$rc" 2 "aivet tui without a terminal exits 2"

# Where the database lives.
unset AIVET_DB
"$AIVET" vendor add Xdg >/dev/null
ok "$([ -f "$XDG_DATA_HOME/aivet/aivet.db" ]; echo $?)" "default database under XDG_DATA_HOME"
is "$(stat -c %a "$XDG_DATA_HOME/aivet")" 700 "its directory is 0700"
is "$(stat -c %a "$XDG_DATA_HOME/aivet/aivet.db")" 600 "the file is 0600"
(unset XDG_DATA_HOME; "$AIVET" vendor add Fallback >/dev/null)
ok "$([ -f "$HOME/.local/share/aivet/aivet.db" ]; echo $?)" "fallback ~/.local/share/aivet/aivet.db"
AIVET_DB="$T/env.db" "$AIVET" vendor add Env >/dev/null
ok "$([ -f "$T/env.db" ]; echo $?)" "AIVET_DB is used"
AIVET_DB="$T/env.db" "$AIVET" --db "$T/flag.db" vendor add Flag >/dev/null
is "$(sqlite3 "$T/flag.db" 'SELECT name FROM vendor')" "Flag" "--db wins over AIVET_DB"
is "$(sqlite3 "$T/env.db" 'SELECT group_concat(name) FROM vendor')" "Env" "and AIVET_DB was not touched"
is "$(sqlite3 "$T/env.db" 'PRAGMA journal_mode')" "wal" "WAL mode"
export AIVET_DB="$T/aivet.db"

# The actor.
"$AIVET" vendor add A1 >/dev/null
AIVET_ACTOR= LOGNAME=carol "$AIVET" vendor add A2 >/dev/null
"$AIVET" --actor dave vendor add A3 >/dev/null
is "$(sqlite3 "$AIVET_DB" 'SELECT group_concat(actor) FROM audit_log ORDER BY seq')" "tester,carol,dave" \
	"actor from AIVET_ACTOR, the login name, --actor"

# A database from a newer aivet is refused and left untouched.
sqlite3 "$AIVET_DB" 'PRAGMA wal_checkpoint(TRUNCATE); PRAGMA journal_mode=DELETE; PRAGMA user_version = 999' >/dev/null
before=$(md5sum < "$AIVET_DB")
run vendor list
is "$rc" 3 "newer database: exit 3"
is "$errout" "aivet: database $AIVET_DB has schema version 999, newer than this aivet understands ($(ls "$TESTS_SRCDIR/../db/"*.sql | wc -l)): upgrade aivet; the database was left untouched" \
	"newer database message"
is "$(md5sum < "$AIVET_DB")" "$before" "newer database untouched"

# So is an SQLite file that holds tables but is not aivet's (schema version 0).
foreign=$T/foreign.db
sqlite3 "$foreign" 'CREATE TABLE patients (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO patients VALUES (1, '"'x'"')'
before=$(md5sum < "$foreign")
run --db "$foreign" vendor list
is "$rc:$errout" "2:aivet: $foreign is an SQLite database but not aivet's: it was left untouched" \
	"a foreign SQLite file: refused, exit 2, named"
is "$(md5sum < "$foreign"):$(sqlite3 "$foreign" 'SELECT group_concat(name) FROM sqlite_master')" "$before:patients" \
	"a foreign SQLite file: untouched, no table added"

# Start-up maps no library a command may not need: libcurl, libpq, libxml2 (and the
# TLS, Kerberos, LDAP and ICU libraries behind them) are loaded when first called.
if command -v readelf >/dev/null 2>&1; then
	needed=$(readelf -d "$AIVET" | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p' | tr '\n' ' ')
	for lib in libcurl libpq libxml2 libssl libgssapi_krb5 libldap libicuuc; do
		unlike "$needed" "(^| )$lib\\." "aivet does not link $lib at start-up"
	done
else
	for lib in 1 2 3 4 5 6 7; do skip "readelf (binutils) is needed"; done
fi

done_testing
