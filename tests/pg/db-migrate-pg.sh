#!/bin/sh
# db-migrate-pg.sh: the two stores keep the same promises. An empty
# PostgreSQL database is migrated to the schema version an SQLite file gets,
# with the same tables; and on both, the database itself refuses what aivet
# never does: an UPDATE, DELETE or TRUNCATE of the audit log or an entry out
# of sequence, any change to a final assessment round, and any edit of a
# sealed evidentiary row (finding, probe result, run, exchange, evidence,
# stored content, incident entry, report). With the refusing triggers
# switched off, 'aivet audit verify' still names the edited row.
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/pg-lib.sh"
. "$TESTS_SRCDIR/lib/sim-lib.sh"
. "$TESTS_SRCDIR/lib/probe-lib.sh"
D="$TESTS_SRCDIR/data"

pg_start
# On a server the actor is the login: the test's actor owns the database (and
# may create aivet's roles when it migrates it).
pg_login "$AIVET_ACTOR" CREATEROLE >/dev/null
pg_createdb aivet "$AIVET_ACTOR"
PG_URL=$(pg_url aivet "$AIVET_ACTOR")
LITE_DB=$AIVET_DB

# ---- migrating an empty database ----
AIVET_DB=$PG_URL
run vendor list
is "$rc:$out" "0:ID    NAME                             CRIT ENDPOINTS STATUS   INCIDENTS RATING" \
	"an empty PostgreSQL database is migrated on first use"
AIVET_DB=$LITE_DB
"$AIVET" vendor list >/dev/null
lite_version=$(sqlite3 "$LITE_DB" "PRAGMA user_version")
is "$(pg_sql -d aivet "SELECT version FROM aivet_schema")" "$lite_version" \
	"the same schema version as SQLite's ($lite_version)"
# Stored content is compressed with lz4 where the server has it (db/pg/019).
lz4=$(pg_sql -d aivet "SELECT count(*) FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY (enumvals)")
is "$(pg_sql -d aivet "SELECT attcompression FROM pg_attribute WHERE attrelid = 'blob'::regclass AND attname = 'data'")" \
	"$([ "$lz4" = 1 ] && echo l)" "stored content: lz4 where the server has it ($lz4)"
# (PostgreSQL's own bookkeeping aside: the schema version, the operations
# of open transactions that db/pg/008-workflow.sql holds to their audit entries,
# and the severity order aivet gives severity_rank() (db/pg/010-severity.sql).)
is "$(pg_sql -d aivet "SELECT string_agg(tablename, ' ' ORDER BY tablename) FROM pg_tables
	WHERE schemaname = 'public' AND tablename NOT IN ('aivet_schema', 'aivet_op', 'aivet_severity', 'aivet_seal_part')")" \
	"$(sqlite3 "$LITE_DB" "SELECT group_concat(name, ' ') FROM (SELECT name FROM sqlite_master
	WHERE type = 'table' ORDER BY name)")" "the same tables"
run --db "$PG_URL" vendor list
is "$rc" 0 "opening it again applies nothing twice"
"$AIVET" --db "$LITE_DB" vendor add Plain >/dev/null
run --db "sqlite:$LITE_DB" vendor list --json
is "$rc:$(printf '%s' "$out" | json '.[].name')" "0:Plain" "sqlite:PATH names the same SQLite file as PATH"
"$AIVET" endpoint add Plain --name e --api openai --url https://api.example.org/v1 --model m \
	--context 1000 --credential "a=file:$LITE_DB" >/dev/null
msg=$(AIVET_DB="sqlite:$LITE_DB" "$AIVET" probe run Plain/e --yes 2>&1 >/dev/null) && rc=0 || rc=$?
is "$rc:$msg" "2:aivet: tenant 'a': credential file:$LITE_DB: that is one of aivet's own key or database files, never a vendor's key" \
	"AIVET_DB=sqlite:PATH: that file is still known as aivet's own, never a credential"
pg_sql -d postgres "CREATE DATABASE other" >/dev/null
pg_sql -d other "CREATE TABLE t (x int)" >/dev/null
run --db "$(pg_url other "$PG_SUPER")" vendor list
is "$rc:$errout" "2:aivet: $(pg_url other "$PG_SUPER") is a PostgreSQL database but not aivet's: it was left untouched" \
	"someone else's PostgreSQL database is not taken over"
is "$(pg_sql -d other "SELECT string_agg(tablename, ' ') FROM pg_tables WHERE schemaname = 'public'")" t \
	"and nothing was added to it"
pg_sql -d aivet "UPDATE aivet_schema SET version = 999" >/dev/null
run --db "$PG_URL" vendor list
is "$rc:$errout" "3:aivet: database $PG_URL has schema version 999, newer than this aivet understands ($lite_version): upgrade aivet; the database was left untouched" \
	"a database from a newer aivet is refused"
pg_sql -d aivet "UPDATE aivet_schema SET version = $lite_version" >/dev/null
# The reviewer: a login of its own, with the role the migrations created.
pg_login bob
pg_sql "GRANT aivet_reviewer TO bob"

# ---- the same records on both ----
sim_start --context 1024 --pool 256 --tenants "$PROBE_TENANTS" --fault disagg-placeholder || exit 1
printf 'contract, section 4\n' > "$T/contract.txt"
fill() {
	probe_setup openai 1024 &&
	"$AIVET" probe run V/e --yes --probe echo,canary >/dev/null 2>&1
	"$AIVET" questionnaire import "$D/scoring-questionnaire.json" >/dev/null &&
	"$AIVET" assess start V scoring-test >/dev/null &&
	"$AIVET" assess answer 1 gate no >/dev/null &&
	"$AIVET" assess answer 1 notify 12h --evidence "$T/contract.txt" >/dev/null &&
	"$AIVET" assess submit 1 >/dev/null &&
	approve_second >/dev/null &&
	"$AIVET" incident open V --title "Leak" --discovered 2026-11-01T09:00:00Z >/dev/null &&
	"$AIVET" incident note 1 "vendor called back" >/dev/null
}

# approve_second: approval by a second person; on PostgreSQL that is another
# login (the actor is the login, and the server refuses the author's approval).
approve_second() {
	case $AIVET_DB in
	postgresql:*) "$AIVET" --db "$(pg_url aivet bob)" assess approve 1 ;;
	*) approver_key bob; "$AIVET" --actor bob assess approve 1 ;;
	esac
}

# refused BACKEND SQL WORDS: the statement fails, saying WORDS, and changes nothing.
refused() {
	_before=$(db_snapshot)
	_msg=$(sqlite3 "$AIVET_DB" "$2" 2>&1) && _rc=0 || _rc=$?
	if [ "$_rc" != 0 ] && printf '%s' "$_msg" | grep -q -- "$3"; then
		ok 0 "$1: refused: $2"
	else
		ok 1 "$1: refused: $2"
		echo "#   status $_rc: $_msg"
	fi
	is "$(db_snapshot)" "$_before" "$1: and nothing changed"
}

guarantees() {
	b=$1
	run audit verify
	like "$rc:$out" "^0:audit chain intact" "$b: the records are in an intact chain"
	is "$(sqlite3 "$AIVET_DB" "SELECT count(*) > 0 FROM finding WHERE code = 'LEAK_CROSS_TENANT'"):$(sqlite3 "$AIVET_DB" \
		"SELECT status FROM assessment WHERE id = 1"):$(sqlite3 "$AIVET_DB" "SELECT count(*) FROM incident_entry")" \
		"1:final:2" "$b: a cross-tenant finding, a final round and an incident timeline to guard"
	refused "$b" "UPDATE audit_log SET actor = 'mallory' WHERE seq = 2" "the audit log is append-only"
	refused "$b" "DELETE FROM audit_log WHERE seq = 2" "the audit log is append-only"
	refused "$b" "INSERT INTO audit_log (seq, at, actor, action, object_type, object_id, details, prev_hash, entry_hash)
		SELECT seq + 5, at, actor, action, object_type, object_id, details, entry_hash, entry_hash FROM audit_log
		WHERE seq = (SELECT max(seq) FROM audit_log)" "seq must be the next number after the head"
	refused "$b" "UPDATE assessment SET reviewer = 'mallory' WHERE id = 1" "final assessments are read-only"
	refused "$b" "UPDATE answer SET value = '\"yes\"' WHERE assessment_id = 1 AND question_id = 'gate'" \
		"final assessments are read-only"
	refused "$b" "DELETE FROM answer WHERE assessment_id = 1" "final assessments are read-only"
	refused "$b" "INSERT INTO answer VALUES (1, 'tokens', '5', NULL, 'mallory', '2026-11-30T00:00:00.000Z')" \
		"final assessments are read-only"
	refused "$b" "DELETE FROM answer_evidence WHERE assessment_id = 1" "final assessments are read-only"
	refused "$b" "UPDATE finding SET severity = 'info'" "findings are immutable"
	refused "$b" "DELETE FROM finding_evidence" "findings are immutable"
	refused "$b" "UPDATE probe_result SET verdict = 'pass'" "probe results are immutable"
	refused "$b" "UPDATE probe_run SET status = 'completed', tokens_in = 0" "finished probe runs are read-only"
	refused "$b" "UPDATE exchange SET response_status = 200" "exchanges are immutable"
	refused "$b" "UPDATE evidence SET original_name = 'other.txt'" "evidence is immutable"
	refused "$b" "DELETE FROM blob" "stored content is immutable"
	refused "$b" "UPDATE incident_entry SET text = 'nothing happened'" "incident timeline entries are immutable"
	refused "$b" "DELETE FROM answer_history" "answer history is append-only"
}

AIVET_DB=$LITE_DB
fill
guarantees sqlite
AIVET_DB=$PG_URL
db_snapshot() { sqlite3 "$AIVET_DB" .dump | md5sum; }
PATH=$TESTS_SRCDIR/lib/pg-bin:$PATH
pg_sql "DROP DATABASE aivet WITH (FORCE)" >/dev/null && pg_createdb aivet "$AIVET_ACTOR"
fill
guarantees postgresql
for t in audit_log finding probe_result exchange evidence blob incident_entry answer answer_history; do
	refused postgresql "TRUNCATE $t CASCADE" "immutable\|append-only\|read-only"
done

# ---- the seal: with the triggers off (the database owner can), an edit is found ----
pg_sql -d aivet "ALTER TABLE finding DISABLE TRIGGER USER; UPDATE finding SET severity = 'info' WHERE id = 1;
	ALTER TABLE finding ENABLE TRIGGER USER" >/dev/null
n=$(sqlite3 "$AIVET_DB" "SELECT seq FROM audit_log WHERE object_type = 'finding' AND object_id = 1")
run audit verify
is "$rc:$errout" "1:aivet: audit chain broken: finding 1 does not match audit entry $n: edited after it was recorded" \
	"postgresql: a finding edited behind the triggers is named by audit verify"
pg_sql -d aivet "ALTER TABLE finding DISABLE TRIGGER USER; UPDATE finding SET severity = 'critical' WHERE id = 1;
	ALTER TABLE finding ENABLE TRIGGER USER" >/dev/null
# The audit log itself, edited or cut behind its triggers: the chain names where.
pg_sql -d aivet "ALTER TABLE audit_log DISABLE TRIGGER USER; UPDATE audit_log SET actor = 'mallory' WHERE seq = 2;
	ALTER TABLE audit_log ENABLE TRIGGER USER" >/dev/null
run audit verify
is "$rc:$errout" "1:aivet: audit chain broken: entry 2: contents do not match its entry_hash (edited after it was written)" \
	"postgresql: an audit entry edited behind the triggers is named"
pg_sql -d aivet "ALTER TABLE audit_log DISABLE TRIGGER USER; UPDATE audit_log SET actor = '$AIVET_ACTOR' WHERE seq = 2;
	DELETE FROM audit_log WHERE seq = 3; ALTER TABLE audit_log ENABLE TRIGGER USER" >/dev/null
run audit verify
is "$rc:$errout" "1:aivet: audit chain broken: entry 3 is missing (next entry is 4)" \
	"postgresql: a deleted audit entry is named"

# The session's settings go with the connection request, after the URI's own
# options, which still apply: a URI asking for read-only transactions gets them
# (a write is refused by the server), and aivet's own settings hold beside them.
ro="$PG_URL&options=-c%20default_transaction_read_only%3Don"
run --db "$ro" vendor add ReadOnly
is "$rc" 3 "a URI's options apply: with read-only transactions a write fails (exit 3)"
like "$errout" "read-only transaction" "the server's refusal is said"
run --db "$ro" vendor list --json
is "$rc:$(printf '%s' "$out" | jq -r '[.[].name] | index("ReadOnly")')" "0:null" \
	"reading works on it, and nothing was written"

done_testing
