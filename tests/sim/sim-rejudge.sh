#!/bin/sh
# sim-rejudge.sh: "aivet probe rejudge RUN" derives each probe's verdict,
# reason, details and findings again from the run's recorded exchanges alone
# (nothing sent: the simulator is stopped first) and compares them with what
# the run stored. Honest runs of aivet-sim, correct and with faults that make
# probes fail, retry on 429 or calibrate by the count endpoint, re-derive
# clean; a stored verdict, finding or measured number rewritten behind the
# database's guards is named, probe by probe, and so is an exchange missing.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib/lib.sh"
. "$TESTS_SRCDIR/lib/sim-lib.sh"
. "$TESTS_SRCDIR/lib/probe-lib.sh"

# expected: "run 1 probe NAME: re-derived (VERDICT)" for each probe of the run JSON in $out.
expected() {
	printf '%s' "$out" | jq -r '.probes[] | "run 1 probe \(.name): re-derived (\(.verdict))"'
}

# honest NAME SIM-ARGS...: a run against aivet-sim with SIM-ARGS, stopped, then rejudged.
honest() {
	_name=$1
	shift
	sim_start --context 8192 --pool 8192 --tenants "$PROBE_TENANTS" "$@" || exit 1
	probe_setup openai 8192
	run_probes
	run_json=$out
	sim_stop
	want=$(expected)
	run probe rejudge 1
	is "$rc" 0 "$_name: the rejudge exits 0"
	is "$out" "$want" "$_name: every probe re-derived with the verdict the run stored"
	out=$run_json
}

honest correct
is "$(printf '%s' "$out" | jq -r '[.probes[].verdict] | join(" ")')" "pass pass pass pass pass" \
    "correct: the run passed every probe"

honest "stream-error" --fault stream-error
is "$(per_probe)" "echo:fail[STREAM_ERROR_AFTER_200] oversize:pass[] sweep:fail[STREAM_ERROR_AFTER_200] canary:fail[LOAD_BREAKS_OTHER_TENANT] errors:pass[]" \
    "stream-error: the failing verdicts re-derived are failures"
honest "rate-limit (429 then retried)" --fault rate-limit
like "$(q "SELECT group_concat(response_status, ' ') FROM exchange WHERE probe = 'calibration'")" "^429 429 200 200" \
    "rate-limit: the record holds the refused attempts and their retries"
honest "no-usage (counted by the count endpoint)" --fault no-usage
honest "noisy-neighbour" --fault noisy-neighbour
honest "lose-middle" --fault lose-middle
is "$(per_probe)" "echo:pass[] oversize:pass[] sweep:fail[SILENT_TRUNCATION] canary:pass[] errors:pass[]" \
    "lose-middle: the sweep fails on silent truncation"
cp "$AIVET_DB" "$T/honest.db"

# ---- the stored results rewritten (the guards dropped, as a writer of the file could) ----
sqlite3 "$AIVET_DB" "DROP TRIGGER probe_result_no_update; DROP TRIGGER finding_no_delete;
    UPDATE probe_result SET verdict = 'pass' WHERE probe = 'sweep';
    DELETE FROM finding WHERE probe = 'sweep';
    UPDATE probe_result SET details = json_set(details, '\$.judged', 99) WHERE probe = 'echo'"
run probe rejudge 1
is "$rc" 1 "edited: the rejudge exits 1"
is "$(printf '%s\n' "$out" | grep -c 're-derived (')" 3 "edited: the three untouched probes are re-derived"
like "$out" "run 1 probe sweep: verdict differs: re-derived fail, recorded pass" \
    "edited: the sweep's verdict flipped to pass is named"
like "$out" 'run 1 probe sweep: findings differs: re-derived \[\{"code":"SILENT_TRUNCATION","severity":"high",.*"evidence":\[[0-9,]*\]\}\], recorded \[\]' \
    "edited: the sweep's finding dropped is named, with its code, severity and evidence"
like "$out" "run 1 probe echo: details.judged differs: re-derived 2, recorded 99" \
    "edited: a measured number changed is named with its path and both values"
is "$errout" "aivet: run 1: 3 differences between its results and its exchanges" \
    "edited: the error counts the differences"

cp "$T/honest.db" "$AIVET_DB"
sqlite3 "$AIVET_DB" "DROP TRIGGER finding_no_update;
    UPDATE finding SET severity = 'low' WHERE probe = 'sweep'"
run probe rejudge 1
is "$rc:$(printf '%s\n' "$out" | grep -c differs)" "1:1" "edited severity: exit 1, one difference"
like "$out" 'run 1 probe sweep: findings\[0\].severity differs: re-derived "high", recorded "low"' \
    "edited severity: the finding's severity is named"

# ---- an exchange missing from the record ----
cp "$T/honest.db" "$AIVET_DB"
last=$(q "SELECT max(seq) FROM exchange WHERE probe = 'sweep'")
sqlite3 "$AIVET_DB" "DROP TRIGGER exchange_no_delete; DELETE FROM exchange WHERE probe = 'sweep' AND seq = $last"
run probe rejudge 1
is "$rc" 1 "missing exchange: the rejudge exits 1"
is "$errout" "aivet: sweep: request $last has no recorded exchange (the record goes on with another request)" \
    "missing exchange: the probe and the request are named"
unlike "$out" "probe sweep: re-derived" "missing exchange: the sweep is never said to be re-derived"

# ---- a run that recorded no judging rules (made before rejudging) ----
cp "$T/honest.db" "$AIVET_DB"
sqlite3 "$AIVET_DB" "DROP TRIGGER probe_run_finished_update;
    UPDATE probe_run SET options = json_remove(options, '\$.rules')"
run probe rejudge 1
is "$rc:$out" "2:" "no rules recorded: exit 2, nothing said re-derived"
is "$errout" "aivet: not re-derivable: the run recorded no judging rules, seed or depth (it was made by an aivet older than rejudging)" \
    "no rules recorded: the run is not re-derivable, and why"
sqlite3 "$AIVET_DB" "UPDATE probe_run SET options = json_set(options, '\$.rules', '0')"
run probe rejudge 1
is "$rc:$errout" "2:aivet: not re-derivable: the run was judged by rules 0 and this aivet has only rules 1" \
    "other rules: not re-derivable, naming both"

done_testing
