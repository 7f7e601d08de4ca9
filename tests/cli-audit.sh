#!/bin/sh
# cli-audit.sh: "aivet audit verify" against edits made behind aivet's
# back with the sqlite3 shell — refused by the triggers, and caught by the
# hash chain even when the triggers are dropped.
. "$TESTS_SRCDIR/lib.sh"

"$AIVET" vendor add Acme >/dev/null
"$AIVET" vendor add Beta >/dev/null
"$AIVET" vendor edit Acme --criticality 4 >/dev/null
"$AIVET" endpoint add Acme --name prod --api openai --url https://a.example --model m --context 100 >/dev/null

head=$(sqlite3 "$AIVET_DB" 'SELECT entry_hash FROM audit_log WHERE seq = 4')
run audit verify
is "$rc" 0 "intact chain exits 0"
is "$out" "audit chain intact: 4 entries, head $head" "intact message"
run audit verify --json
is "$(printf '%s' "$out" | json '[.intact, .entries, .head] | @csv')" "true,4,\"$head\"" "json verify"

err=$(sqlite3 "$AIVET_DB" "UPDATE audit_log SET actor = 'mallory' WHERE seq = 2" 2>&1)
like "$err" "the audit log is append-only" "sqlite3 UPDATE refused by the trigger"
err=$(sqlite3 "$AIVET_DB" "DELETE FROM audit_log" 2>&1)
like "$err" "the audit log is append-only" "sqlite3 DELETE refused by the trigger"

cp "$AIVET_DB" "$T/good.db"
sqlite3 "$AIVET_DB" "DROP TRIGGER audit_log_no_update; UPDATE audit_log SET actor = 'mallory' WHERE seq = 2"
run audit verify
is "$rc" 1 "tampered chain exits 1"
is "$errout" "aivet: audit chain broken: entry 2: contents do not match its entry_hash (edited after it was written)" \
	"names the first bad entry"
run audit verify --json
is "$(printf '%s' "$out" | json '[.intact, .entries, .first_bad_entry] | @csv')" "false,1,2" "json names it too"

cp "$T/good.db" "$AIVET_DB"; rm -f "$AIVET_DB-wal" "$AIVET_DB-shm"
sqlite3 "$AIVET_DB" "DROP TRIGGER audit_log_no_delete; DELETE FROM audit_log WHERE seq = 3"
run audit verify
is "$errout" "aivet: audit chain broken: entry 3 is missing (next entry is 4)" "a deleted entry is found"

# Changing the data itself (not the log) leaves the log's record of what was written.
cp "$T/good.db" "$AIVET_DB"; rm -f "$AIVET_DB-wal" "$AIVET_DB-shm"
sqlite3 "$AIVET_DB" "UPDATE vendor SET criticality = 0 WHERE name = 'Acme'"
run audit log --json
is "$(printf '%s' "$out" | json '[.[] | select(.action == "vendor.edit") | .details.criticality] | @csv')" 4 \
	"the log keeps what aivet wrote"

done_testing
