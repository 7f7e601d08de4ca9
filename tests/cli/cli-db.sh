#!/bin/sh
# tests/cli/cli-db.sh: "aivet db" on SQLite files: a whole database copied into
# a new file row for row (ids, stored content, the final round, the audit
# chain with the same head), the copy refused into a database that holds
# anything or from one that does not exist, and who you are on an SQLite
# file (the actor; roles belong to PostgreSQL and are refused here).
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/sim-lib.sh"
. "$TESTS_SRCDIR/lib/db-fixture.sh"

fixture_build
ok $? "a database with rows in every table"
for tk in $FIXTURE_TABLES; do
	t=${tk%%:*}
	n=$(sqlite3 "$AIVET_DB" "SELECT count(*) FROM $t")
	[ "$n" -gt 0 ] || echo "# $t is empty"
done
is "$(for tk in $FIXTURE_TABLES; do t=${tk%%:*}; [ "$(sqlite3 "$AIVET_DB" "SELECT count(*) FROM $t")" -gt 0 ] || echo "$t"; done)" \
	"" "the fixture fills every table"
head=$("$AIVET" audit verify | sed -n 's/.*head //p')

run db copy "$AIVET_DB" "$T/copy.db"
is "$rc" 0 "copy into a new file$errout"
is "$(printf '%s\n' "$out" | tail -1)" \
	"audit chain: $(sqlite3 "$AIVET_DB" 'SELECT count(*) FROM audit_log') entries, head $head, the same on both" \
	"the copy names the chain's head"
is "$(printf '%s\n' "$out" | head -1)" \
	"copied $(for tk in $FIXTURE_TABLES; do sqlite3 "$AIVET_DB" "SELECT count(*) FROM ${tk%%:*}"; done | paste -sd+ | bc) rows from $AIVET_DB to $T/copy.db" \
	"and how many rows it copied"
is "$(fixture_dump "$T/copy.db" | md5sum)" "$(fixture_dump "$AIVET_DB" | md5sum)" \
	"every row of every table is the same, ids and stored bytes included"
is "$(sqlite3 "$T/copy.db" "SELECT status || ' ' || reviewer FROM assessment WHERE id = 1")" "final rita" \
	"the final round is final again, with its reviewer"
run --db "$T/copy.db" audit verify
is "$rc:$out" "0:audit chain intact: $(sqlite3 "$AIVET_DB" 'SELECT count(*) FROM audit_log') entries, head $head" \
	"audit verify on the copy: the same head"
run --db "$T/copy.db" --actor alice vendor add W
is "$out" "vendor W added (id 2)" "new rows in the copy take the next id"

run --db "$T/copy.db" db copy "$T/copy.db" "$T/copy.db"
is "$rc:$errout" "2:aivet: the source and the destination are the same database
usage: aivet db copy SRC DST [--json]" "a database is not copied onto itself"
snap=$(sqlite3 "$T/copy.db" .dump | md5sum)
run db copy "$AIVET_DB" "$T/copy.db"
is "$rc" 2 "a destination with rows is refused (exit 2)"
like "$errout" "^aivet: the destination is not empty \(2 vendor, 1 endpoint, 2 credential, .*\): db copy only fills an empty database; nothing was copied$" \
	"naming what it holds"
is "$(sqlite3 "$T/copy.db" .dump | md5sum)" "$snap" "and leaving it as it was"
run db copy "$T/none.db" "$T/other.db"
is "$rc:$errout" "2:aivet: db copy: no database at $T/none.db" "a source that does not exist is refused"
ok "$([ ! -e "$T/none.db" ] && [ ! -e "$T/other.db" ] && echo 0 || echo 1)" "and neither file is created"
run db copy "$AIVET_DB"
is "$rc" 2 "copy needs two databases"

# An edited source is copied as it is, and the copy says so (exit 1).
cp "$AIVET_DB" "$T/edited.db"
sqlite3 "$T/edited.db" "DROP TRIGGER audit_log_no_update; UPDATE audit_log SET actor = 'mallory' WHERE seq = 2"
run db copy "$T/edited.db" "$T/edited-copy.db" --json
is "$rc" 1 "a broken chain is copied and reported (exit 1)"
is "$(printf '%s' "$out" | jq -r '[.audit_ok, .audit_entries, .tables.audit_log] | map(tostring) | join(" ")')" \
	"false $(sqlite3 "$AIVET_DB" 'SELECT count(*) FROM audit_log') $(sqlite3 "$AIVET_DB" 'SELECT count(*) FROM audit_log')" \
	"--json: the chain does not verify, every entry is there"
run --db "$T/edited-copy.db" audit verify
is "$rc:$errout" "1:aivet: audit chain broken: entry 2: contents do not match its entry_hash (edited after it was written)" \
	"the copy's chain fails just as the source's, at the same entry"

# ---- who am I on SQLite ----
run --actor alice db whoami
is "$out" "actor     alice
backend   sqlite
roles     none: whoever can write the file can do anything" "whoami: the actor, no roles"
run --actor alice db whoami --json
is "$(printf '%s' "$out" | jq -c '[.login, .backend, .owner, .roles, .write, .approve]')" \
	'["alice","sqlite",true,[],true,true]' "whoami --json"
snap=$(db_snapshot)
run db grant alice reviewer
is "$rc:$errout" "2:aivet: roles live on a PostgreSQL database; on an SQLite file whoever can write the file can do anything" \
	"grant on SQLite is refused"
run db roles
is "$rc" 2 "db roles on SQLite is refused"
run db grant alice boss
is "$rc:$errout" "2:aivet: 'boss' is not a role: assessor, reviewer or auditor
usage: aivet db grant LOGIN assessor|reviewer|auditor" "an unknown role is refused"
is "$(db_snapshot)" "$snap" "nothing changed"

sim_stop
done_testing
