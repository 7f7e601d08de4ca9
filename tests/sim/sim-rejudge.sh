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

# ---- the run's bundle, rejudged on a machine that trusts only the signer's key ----
"$AIVET" key generate --no-password >/dev/null
run report V --out "$T/b"
is "$rc" 0 "bundle: the report of the lose-middle run is written"
"$AIVET" key export aivet > "$T/signer.pub" 2>/dev/null || cp "$T/b/aivet.pub" "$T/signer.pub"
# auditor CMD...: aivet with an empty home and no database of the signer's.
auditor() {
	out=$(env XDG_CONFIG_HOME="$T/auditor" AIVET_DB="$T/auditor.db" "$AIVET" "$@" 2>"$T/stderr") && rc=0 || rc=$?
	errout=$(cat "$T/stderr")
}
auditor verify "$T/b" --pubkey "$T/signer.pub" --rejudge
is "$rc" 0 "bundle: verify --rejudge exits 0"
is "$(printf '%s\n' "$out" | grep '^run ')" "run 1 probe echo: re-derived (pass)
run 1 probe oversize: re-derived (pass)
run 1 probe sweep: re-derived (fail)
run 1 probe canary: re-derived (pass)
run 1 probe errors: re-derived (pass)" "bundle: every probe re-derived from the bundle alone"
auditor verify "$T/b" --pubkey "$T/signer.pub" --rejudge --json
is "$rc:$(printf '%s' "$out" | jq -c '[.ok, .rejudge.ok, .rejudge.differences, .rejudge.lines[2]]')" \
    '0:[true,true,0,"run 1 probe sweep: re-derived (fail)"]' "bundle: --json gives the rejudge's lines in the object"
is "$(q "SELECT count(*) FROM exchange") $(ls "$T/b/evidence" | grep -c '^exchange-')" \
    "$(q "SELECT count(*) FROM exchange") $(q "SELECT count(*) FROM exchange")" \
    "bundle: it carries every exchange of the run, not only the cited ones"

# resign DIR: SHA256SUMS made again over DIR's files and signed with the signer's key.
resign() {
	(cd "$1" && find . -type f ! -name 'SHA256SUMS*' | sed 's|^\./||' | LC_ALL=C sort |
	    xargs sha256sum > SHA256SUMS)
	"$AIVET" key sign "$1/SHA256SUMS" --trusted-comment "$(sed -n 3p "$T/b/SHA256SUMS.minisig" | cut -c18-)" >/dev/null
}
# edited FILTER: a copy of the bundle with report.json passed through jq FILTER, re-signed.
edited() {
	rm -rf "$T/c" && cp -r "$T/b" "$T/c"
	jq "$1" "$T/b/report.json" > "$T/c/report.json"
	resign "$T/c"
}
edited '(.probe_runs[0].results[] | select(.probe == "sweep") | .verdict) = "pass" |
    .probe_runs[0].findings = [] | .findings = []'
auditor verify "$T/c" --pubkey "$T/signer.pub"
is "$rc" 0 "bundle edited: verdict flipped, findings dropped, re-signed: plain verify accepts it"
auditor verify "$T/c" --pubkey "$T/signer.pub" --rejudge
is "$rc" 1 "bundle edited: verify --rejudge exits 1"
like "$out" "run 1 probe sweep: verdict differs: re-derived fail, recorded pass" \
    "bundle edited: the flipped verdict is named with its probe"
like "$out" 'run 1 probe sweep: findings differs: re-derived \[\{"code":"SILENT_TRUNCATION","severity":"high"' \
    "bundle edited: the dropped finding is named with its code and severity"
like "$errout" "4 differences between the bundle's results and its exchanges" \
    "bundle edited: the error counts the differences (the summary still counting the dropped finding, and report.md still showing the fail, are two)"

edited '(.probe_runs[0].results[] | select(.probe == "sweep") | .details.judged) |= . + 1'
auditor verify "$T/c" --pubkey "$T/signer.pub" --rejudge
is "$rc" 1 "bundle with a measured number edited: exit 1"
like "$out" "run 1 probe sweep: details.judged differs: re-derived [0-9]+, recorded [0-9]+" \
    "bundle with a measured number edited: the number is named with its path"

edited '(.probe_runs[0].findings[] | select(.probe == "sweep") | .severity) = "low"'
auditor verify "$T/c" --pubkey "$T/signer.pub" --rejudge
is "$rc" 1 "bundle with a finding's severity lowered: exit 1"
like "$out" 'run 1 probe sweep: findings\[0\]\.severity differs: re-derived "high", recorded "low"' \
    "bundle with a finding's severity lowered: named"

edited '(.probe_runs[0].results[] | select(.probe == "echo") | .reason) = "forged" |
    (.probe_runs[0].results[] | select(.probe == "oversize") | .requests) = 1'
auditor verify "$T/c" --pubkey "$T/signer.pub" --rejudge
is "$rc" 1 "bundle with a reason and a request count edited: exit 1"
like "$out" "run 1 probe echo: reason differs: re-derived .*, recorded forged" "bundle: the edited reason is named"
like "$out" "run 1 probe oversize: requests differs: re-derived 4, recorded 1" "bundle: the edited request count is named"

# An exchange whose request was changed (its digest), the report's hash of it updated, re-signed.
f=$(jq -r '[.probe_runs[0].exchanges[] | select(.probe == "echo")] | first | .file' "$T/b/report.json")
eseq=$(jq -r '[.probe_runs[0].exchanges[] | select(.probe == "echo")] | first | .seq' "$T/b/report.json")
rm -rf "$T/c" && cp -r "$T/b" "$T/c"
jq '.request.sha256 = "0000000000000000000000000000000000000000000000000000000000000000"' "$T/b/$f" > "$T/c/$f"
h=$(sha256sum "$T/c/$f" | cut -d' ' -f1)
jq --arg f "$f" --arg h "$h" '(.probe_runs[0].exchanges[] | select(.file == $f) | .file_sha256) = $h |
    (.evidence_files[]? | select(.path == $f) | .sha256) = $h' "$T/b/report.json" > "$T/c/report.json"
resign "$T/c"
auditor verify "$T/c" --pubkey "$T/signer.pub" --rejudge
is "$rc" 1 "bundle with a request changed: exit 1"
like "$out" "run 1: not re-derived: replaying the record: echo: request $eseq is not the one recorded \(evidence [0-9]+\): the judgement did not send what the run sent" \
    "bundle with a request changed: the probe and request are named"

edited '.summary.rating = "acceptable" | .summary.findings.high = 0 | .summary.open_findings.high = 0'
auditor verify "$T/c" --pubkey "$T/signer.pub" --rejudge
is "$rc" 1 "bundle with its summary edited: exit 1"
is "$(printf '%s\n' "$out" | grep '^report.json: ')" "report.json: the summary does not count the high findings as the report lists them (1, 1 open)
report.json: the summary's rating is not unacceptable, though a high or critical finding is open" \
    "bundle with its summary edited: the counts and the rating are named"
edited '.findings = []'
auditor verify "$T/c" --pubkey "$T/signer.pub" --rejudge
like "$rc:$(printf '%s\n' "$out" | grep '^report.json: ' | head -1)" "^1:report.json: finding [0-9]+ of run 1 is missing from the report's findings$" \
    "bundle with the report's findings dropped (the run's kept): named"
edited '(.findings[] | select(.probe == "sweep") | .severity) = "low"'
auditor verify "$T/c" --pubkey "$T/signer.pub" --rejudge
like "$rc:$(printf '%s\n' "$out" | grep '^report.json: ' | head -1)" "^1:report.json: finding [0-9]+ differs from its run's$" \
    "bundle with a finding of the report's list lowered (the run's kept): named"

# report.md alone edited (report.json left as it is), re-signed.
rm -rf "$T/c" && cp -r "$T/b" "$T/c"
sed 's/^| sweep | fail | /| sweep | pass | /; s/^| high | SILENT_TRUNCATION | /| low | SILENT_TRUNCATION | /' \
    "$T/b/report.md" > "$T/c/report.md"
resign "$T/c"
auditor verify "$T/c" --pubkey "$T/signer.pub" --rejudge
is "$rc" 1 "bundle with report.md edited: exit 1"
is "$(printf '%s\n' "$out" | grep '^report.md: ')" "report.md: run 1 does not show | sweep | fail | 
report.md: no finding row | high | SILENT_TRUNCATION | sweep | 1 | " \
    "bundle with report.md edited: the verdict and the finding it misstates are named"

# An exchange left out (and out of report.json's list), re-signed.
drop=$(jq -r '[.probe_runs[0].exchanges[] | select(.probe == "sweep")] | last | .file' "$T/b/report.json")
dropseq=$(jq -r '[.probe_runs[0].exchanges[] | select(.probe == "sweep")] | last | .seq' "$T/b/report.json")
edited "del(.probe_runs[0].exchanges[] | select(.file == \"$drop\")) |
    del(.evidence_files[]? | select(.path == \"$drop\"))"
rm -f "$T/c/$drop"
resign "$T/c"
auditor verify "$T/c" --pubkey "$T/signer.pub" --rejudge
is "$rc" 1 "bundle missing an exchange: exit 1"
like "$out" "run 1: not re-derived: sweep: request $dropseq has no recorded exchange" \
    "bundle missing an exchange: the probe and request are named"
unlike "$out" "probe sweep: re-derived" "bundle missing an exchange: the sweep is not said to be re-derived"

# ---- leaked content and a planted secret: sealed in the database, redacted in the bundle ----
# bundle_of VENDOR: the vendor's report, verified and rejudged by the auditor.
bundle_of() {
	rm -rf "$T/s"
	"$AIVET" report "$1" --out "$T/s" >/dev/null
	auditor verify "$T/s" --pubkey "$T/signer.pub" --rejudge
}
sim_start --context 8192 --pool 5324 --tenants "$PROBE_TENANTS" --fault disagg-placeholder || exit 1
probe_setup openai 8192
run_probes
sim_stop
is "$(per_probe)" "echo:pass[] oversize:pass[] sweep:fail[PLACEHOLDER_SUBSTITUTION] canary:fail[LEAK_CROSS_TENANT,PLACEHOLDER_SUBSTITUTION] errors:pass[]" \
    "leaks: the run found the cross-tenant leak"
is "$(q "SELECT count(*) > 0 FROM blob WHERE encrypted = 1")" 1 "leaks: the leaked responses are sealed in the database"
run probe rejudge 1
is "$rc:$(printf '%s\n' "$out" | grep -c 're-derived (')" "0:5" "leaks: the database's run re-derives (sealed responses opened with the evidence key)"
bundle_of V
is "$rc:$(printf '%s\n' "$out" | grep '^run ' | tr '\n' '|')" \
    "0:run 1 probe echo: re-derived (pass)|run 1 probe oversize: re-derived (pass)|run 1 probe sweep: re-derived (fail)|run 1 probe canary: re-derived (fail)|run 1 probe errors: re-derived (pass)|" \
    "leaks: the bundle re-derives the leak from redacted responses, without the evidence key"
red=$(jq -r 'select(.response.body_redacted != null) | .response.body_redacted' "$T"/s/evidence/exchange-*.json)
like "$red" 'AIVET[A-Za-z0-9]{19}\*AIVET' "leaks: a redacted response keeps the planted tokens"
is "$(jq -r 'select(.response.body_redacted != null) | .response.body' "$T"/s/evidence/exchange-*.json | sort -u)" null \
    "leaks: no redacted response carries its text in clear"
# (a stream's pieces joined first: a token may be split between them)
is "$(printf '%s' "$red" | grep -o '"content":"[^"]*"' | sed 's/^"content":"//; s/"$//' | tr -d '\n' |
    sed 's/AIVET[A-Za-z0-9]\{19\}//g' | tr -d '*' | wc -c | tr -d ' ')" 0 \
    "leaks: in the generated text, nothing but the planted tokens is left"
is "$(jq -r 'select(.response.body_redacted != null) | (.response.body_redacted | length) == .response.size' "$T"/s/evidence/exchange-*.json | sort -u)" true \
    "leaks: a redacted body keeps the length of the response"

export KEY_A=key-a KEY_B=key-b KEY_C=key-c
sim_start --tenants a@acme=key-a,b@acme=key-b,c@other=key-c --prefix-cache global --page-size 16 || exit 1
db_fresh
"$AIVET" vendor add X >/dev/null
"$AIVET" endpoint add X --name e --api openai --url "$SIM_URL/v1" --model aivet-sim-1 --context 131072 \
    --credential a=env:KEY_A --credential b=env:KEY_B --credential c=env:KEY_C --credential-org a=acme \
    --credential-org b=acme --credential-org c=other >/dev/null
run probe run X/e --probe cache-extract --yes --json
sim_stop
is "$(printf '%s' "$out" | jq -r '.probes[0] | [.verdict, .details.recovered_units] | @csv')" '"fail",6' \
    "planted secret: the other organisation's key recovered it"
run probe rejudge 1
is "$rc:$out" "0:run 1 probe cache-extract: re-derived (fail)" "planted secret: the database's run re-derives"
bundle_of X
is "$rc:$(printf '%s\n' "$out" | grep '^run ')" "0:run 1 probe cache-extract: re-derived (fail)" \
    "planted secret: the bundle re-derives every guess from redacted answers"
# ---- a timing probe: its statistics re-derived from the recorded timings ----
export KEY_A=key-a KEY_B=key-b
sim_start --tenants a=key-a,b=key-b --prefix-cache global --prefill-us-per-token 25 --fault no-cached-usage || exit 1
db_fresh
"$AIVET" vendor add T >/dev/null
"$AIVET" endpoint add T --name e --api openai --url "$SIM_URL/v1" --model aivet-sim-1 --context 131072 \
    --credential a=env:KEY_A --credential b=env:KEY_B >/dev/null
run probe run T/e --probe prefix-timing --yes --json
verdict=$(printf '%s' "$out" | jq -r '.probes[0].verdict')
sim_stop
run probe rejudge 1
is "$rc:$out" "0:run 1 probe prefix-timing: re-derived ($verdict)" \
    "timing: the database's run re-derives its verdict, p-values and effect sizes"
bundle_of T
is "$rc:$(printf '%s\n' "$out" | grep '^run ')" "0:run 1 probe prefix-timing: re-derived ($verdict)" \
    "timing: the bundle re-derives them from the recorded timings"
cp "$T/honest.db" "$AIVET_DB"

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

# ---- a database given a finding with SQL, then sealed as aivet would: its bundle fails ----
cp "$T/honest.db" "$AIVET_DB"
ev=$(q "SELECT min(evidence_id) FROM exchange WHERE probe = 'echo'")
sqlite3 "$AIVET_DB" "INSERT INTO finding (run_id, probe, code, severity, message, details)
    VALUES (1, 'echo', 'USAGE_ANOMALY', 'medium', 'usage said 1 prompt token', '[$ev]');
    INSERT INTO finding_evidence (finding_id, evidence_id) VALUES (last_insert_rowid(), $ev)"
db_seal
run audit verify
is "$rc" 0 "a finding added and sealed: the audit chain verifies"
rm -rf "$T/r"
run report V --out "$T/r"
is "$rc" 0 "a finding added and sealed: the report is written"
auditor verify "$T/r" --pubkey "$T/signer.pub" --rejudge
is "$rc" 1 "a finding added and sealed: its bundle fails verify --rejudge"
like "$out" 'run 1 probe echo: findings differs: re-derived \[\], recorded \[\{"code":"USAGE_ANOMALY","severity":"medium"' \
    "a finding added and sealed: the echo probe's finding that its exchanges do not raise is named"

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
is "$rc:$errout" "2:aivet: not re-derivable: the run was judged by rules 0 and this aivet has only rules 4" \
    "other rules: not re-derivable, naming both"

done_testing
