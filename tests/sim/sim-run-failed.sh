#!/bin/sh
# sim-run-failed.sh: a run in which every probe ended in error checked
# nothing, and says so. Against a port nobody listens on, every probe ends in
# error: the run is "failed" (not "completed", not "error", which is a run
# stopped by trouble of its own), counts no tokens, exits 3, and every reader
# of a run's status agrees: probe runs (text and JSON), probe show, and the
# vendor's rating, which rests on completed runs only. On SQLite, the
# migration that admits the word rebuilds probe_run: a database that holds
# runs, results, exchanges and findings keeps every row, index and trigger,
# and its audit chain verifies.
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/sim-lib.sh"
. "$TESTS_SRCDIR/lib/probe-lib.sh"

db_fresh
"$AIVET" vendor add D >/dev/null
"$AIVET" endpoint add D --name e --api openai --url http://127.0.0.1:9/v1 --model m --context 4096 \
    --credential alice=env:PROBE_KEY_ALICE --credential bob=env:PROBE_KEY_BOB >/dev/null
run probe run D/e --yes --json
is "$rc" 3 "dead port: exit 3"
is "$(printf '%s' "$out" | jq -c '[.status, .tokens_in, .tokens_out, ([.probes[].verdict] | unique)]')" \
    '["failed",0,0,["error"]]' "dead port: the run failed, nothing counted as sent, every probe in error"
like "$errout" "^aivet: run 1 failed: every probe ended in error \(echo: no answer: " \
    "dead port: the message says the run failed and why"
run probe run D/e --yes
is "$rc $(printf '%s' "$out" | grep '^run ')" "3 run 2 on D/e: failed (0 tokens in, 0 out)" \
    "dead port, text: the run reads failed"
run probe runs
is "$rc" 0 "probe runs: exit 0"
like "$out" "^ +1  D/e +failed +[0-9T:.Z-]+  no findings; [0-9]+ of [0-9]+ probes? inconclusive; run failed" "probe runs lists the run as failed"
run probe runs --json
is "$(printf '%s' "$out" | jq -c '[.[].status] | unique')" '["failed"]' "probe runs --json: status failed"
run probe show 1 --json
is "$(printf '%s' "$out" | jq -r .status)" failed "probe show --json: status failed"
run vendor show D --json
is "$(printf '%s' "$out" | jq -c '[.rating, .rating_basis]')" '["not-assessed","no final round; no probe run"]' \
    "the rating counts a failed run as no run"
run audit verify
is "$rc" 0 "audit verify: the failed runs are sealed"

# ---- the migration keeps every row ----
if [ "${AIVET_TEST_BACKEND:-sqlite}" = pg ]; then
	skip "the table rebuild is SQLite's: PostgreSQL alters the constraint (checked by the run above)"
else
	sim_start --tenants "$PROBE_TENANTS" || exit 1
	"$AIVET" vendor add V >/dev/null
	"$AIVET" endpoint add V --name e --api openai --url "$SIM_URL/v1" --model aivet-sim-1 --context 8192 \
	    --credential alice=env:PROBE_KEY_ALICE --credential bob=env:PROBE_KEY_BOB >/dev/null
	run probe run V/e --probe echo --probe errors --yes
	sim_stop
	mig=$(ls "$TESTS_SRCDIR"/../db/[0-9][0-9][0-9]-run-failed.sql)
	# As the database was before: the status constraint without the new word.
	sqlite3 "$AIVET_DB" "PRAGMA writable_schema = ON;
	    UPDATE sqlite_master SET sql = replace(sql, ', ''failed''', '') WHERE name = 'probe_run';" &&
	    sqlite3 "$AIVET_DB" 'PRAGMA integrity_check' >/dev/null
	is "$(q "SELECT count(*) FROM sqlite_master WHERE name = 'probe_run' AND sql LIKE '%failed%'")" 0 \
	    "the database as it was: probe_run without 'failed'"
	objects() {
		q "SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name <> 'probe_run' ORDER BY name"
	}
	rows() {
		for t in probe_run probe_result exchange finding finding_evidence audit_log; do
			q "SELECT * FROM $t ORDER BY 1"
		done | md5sum
	}
	before_objects=$(objects | md5sum) before_rows=$(rows)
	ok "$([ "$(q 'SELECT count(*) FROM exchange')" -gt 0 ] && [ "$(q 'SELECT count(*) FROM probe_result')" -gt 0 ]; echo $?)" \
	    "the database holds runs, results and exchanges"
	# As aivet applies a migration: foreign keys on, one transaction.
	printf 'PRAGMA foreign_keys = ON;\nBEGIN;\n.read %s\nCOMMIT;\n' "$mig" | sqlite3 -bail "$AIVET_DB" >"$T/mig.out" 2>&1
	is "$?:$(cat "$T/mig.out")" "0:" "the migration applies to a database with runs"
	is "$(q "SELECT count(*) FROM sqlite_master WHERE name = 'probe_run' AND sql LIKE '%''failed''%'")" 1 \
	    "probe_run admits 'failed'"
	is "$(rows)" "$before_rows" "every run, result, exchange, finding and audit entry is kept, ids included"
	is "$(objects | md5sum)" "$before_objects" "every index, trigger and table that names probe_run is as it was"
	is "$(q 'PRAGMA foreign_key_check'):$(q 'PRAGMA integrity_check')" ":ok" "foreign keys and integrity hold"
	run audit verify
	is "$rc" 0 "audit verify: the rebuilt table's rows still verify"
	run probe runs
	is "$(printf '%s\n' "$out" | awk '{ print $1, $2, $3 }' | tr '\n' ' ')" "1 D/e failed 2 D/e failed 3 V/e completed " \
	    "probe runs reads every run after the rebuild"
	like "$(q "UPDATE probe_run SET status = 'completed' WHERE id = 1" 2>&1)" \
	    "finished probe runs are read-only" "the rebuilt table's triggers hold: a finished run is read-only"
fi

done_testing
