#!/bin/sh
# tests/cli/report-counts.sh: the counts a report shows are the ones the
# rating reads. A later run of a probe on the endpoint closes what an earlier
# run of it found: summary.findings counts only open findings, the older ones
# are listed apart (open false, naming the run that superseded them), and a
# contradicted claim is a claim, never a finding. report.json, report.md,
# report.html, OSCAL and vendor show give the same numbers.
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/report-fixture.sh"
make_fixture
"$AIVET" key generate --no-password >/dev/null

# Run 2 repeats oversize on the same endpoint and finds it again (finding 3).
sqlite3 "$AIVET_DB" <<'SQL'
INSERT INTO probe_run (id, endpoint_id, status, probes, options, calibration, tokens_in, tokens_out, actor, started_at, finished_at)
  VALUES (2, 1, 'completed', '["oversize"]', '{}', '{"chars_per_token":3.98}', 10, 10, 'alice', '2026-11-29T14:00:00.000Z', '2026-11-29T14:05:00.000Z');
INSERT INTO probe_result (run_id, probe, verdict, reason, requests, details) VALUES
  (2, 'oversize', 'fail', 'HTTP 200 to a prompt 2x the advertised context', 1, '{"sent":2097152,"status":200}');
INSERT INTO finding (id, run_id, probe, code, severity, message) VALUES
  (3, 2, 'oversize', 'OVERSIZE_ACCEPTED', 'high', 'a prompt twice the advertised context got HTTP 200 again');
SQL
python3 "$TESTS_SRCDIR/lib/seal-rows.py" "$AIVET_DB"

run report acme --out "$T/b1" --at 2026-11-30T08:00:00Z
is "$rc" 0 "report with two runs of oversize on one endpoint"
R="$T/b1/report.json"
is "$(jq -r '.summary | [.rating, .findings.critical, .findings.high, .findings.medium, .claims.contradicted] | map(tostring) | join(" ")' "$R")" \
	"unacceptable 0 2 0 2" "the oversize finding counted once, not twice: the same finding raised twice is open once"
is "$(jq -c '[.findings[] | [.id, .code, .open]]' "$R")" '[[2,"SILENT_TRUNCATION",true],[3,"OVERSIZE_ACCEPTED",true]]' \
	"findings: the open ones, the newer oversize finding among them"
is "$(jq -c '[.superseded_findings[] | [.id, .code, .open, .superseded_by_run]]' "$R")" '[[1,"OVERSIZE_ACCEPTED",false,2]]' \
	"the older one is listed apart, not open, superseded by run 2"
is "$(jq -c '[.probe_runs[] | .findings[] | [.id, .open, .superseded_by_run]]' "$R")" '[[1,false,2],[2,true,null],[3,true,null]]' \
	"each run's findings say whether they are open"
is "$(jq -r '[.summary.critical_findings[].id] | map(tostring) | join(" ")' "$R")" "2 3" \
	"critical and high findings: the open ones only"
is "$(jq -r '[.findings[], .superseded_findings[] | select(.code == "CLAIM_CONTRADICTED")] | length' "$R")" 0 \
	"no contradicted claim among the findings (2 are counted as claims above)"
is "$(grep -A2 '^| open critical |' "$T/b1/report.md" | sed -n 3p)" "| 0 | 2 | 0 | 0 | 0 | 0 | 2 | 1 | 1 |" \
	"report.md: the same counts"
like "$(cat "$T/b1/report.md")" "## Superseded findings (a later run of the probe replaced them; the rating does not read them)

| Severity | Code | Probe | Run | Superseded by run | Message | Evidence |
|---|---|---|---|---|---|---|
| high | OVERSIZE_ACCEPTED | oversize | 1 | 2 |" "report.md: the superseded finding in its own table, naming run 2"
like "$(tr -d '\n' < "$T/b1/report.html")" "<th>open critical</th><th>open high</th><th>open medium</th><th>open low</th><th>open info</th><th>claims confirmed</th><th>claims contradicted</th><th>claims untested</th><th>claims consistent</th></tr><tr><td>0</td><td>2</td><td>0</td><td>0</td><td>0</td><td>0</td><td>2</td><td>1</td><td>1</td>" \
	"report.html: the same counts"
like "$(tr -d '\n' < "$T/b1/report.html")" '<h2 id="superseded">Superseded findings' "report.html: the superseded section"
O="$T/b1/oscal-assessment-results.json"
is "$(jq -r '[."assessment-results".results[0].findings[] | select(any(.props[]?; .name == "superseded-by-run")) | (.props[] | select(.name == "finding-code" or .name == "open" or .name == "superseded-by-run") | .value)] | join(" ")' "$O")" \
	"OVERSIZE_ACCEPTED false 2" "OSCAL: the superseded finding is marked not open, with its run"
is "$(jq -r '[."assessment-results".results[0].findings[] | select(any(.props[]?; .name == "open" and .value == "true"))] | length' "$O")" 2 \
	"OSCAL: two open findings"
is "$(jq -r '[."assessment-results".results[0].findings[] | select(.description | startswith("The vendor")) |
    "\(.title) \(.target.status.state)"] | join("; ")' "$O")" \
	"CLAIM_CONTRADICTED not-satisfied; CLAIM_CONTRADICTED not-satisfied" \
	"OSCAL: the two contradicted claims are findings; the untested and the consistent one conclude nothing"
run vendor show acme
is "$(printf '%s\n' "$out" | grep '^  findings ')" "  findings     open: 2 high" "vendor show: the same counts"
run vendor show acme --json
is "$(printf '%s\n' "$out" | jq -c '.open_findings')" '{"critical":0,"high":2,"medium":0,"low":0,"info":0}' \
	"vendor show --json: the same counts"

# Run 3 repeats oversize and it passes: the oversize finding is closed.
sqlite3 "$AIVET_DB" <<'SQL'
INSERT INTO probe_run (id, endpoint_id, status, probes, options, calibration, tokens_in, tokens_out, actor, started_at, finished_at)
  VALUES (3, 1, 'completed', '["oversize"]', '{}', '{"chars_per_token":3.98}', 10, 10, 'alice', '2026-11-29T15:00:00.000Z', '2026-11-29T15:05:00.000Z');
INSERT INTO probe_result (run_id, probe, verdict, reason, requests, details) VALUES
  (3, 'oversize', 'pass', NULL, 1, '{"sent":2097152,"status":400}');
SQL
python3 "$TESTS_SRCDIR/lib/seal-rows.py" "$AIVET_DB"
run report acme --out "$T/b2" --at 2026-11-30T08:00:00Z
R="$T/b2/report.json"
is "$(jq -r '.summary | [.rating, .findings.critical, .findings.high, (.critical_findings | length)] | map(tostring) | join(" ")' "$R")" \
	"unacceptable 0 1 1" "a pass closes the oversize finding (still unacceptable for the other high one)"
is "$(jq -c '[.superseded_findings[] | [.id, .superseded_by_run]]' "$R")" '[[1,3],[3,3]]' \
	"both oversize findings are listed apart, superseded by run 3"
like "$(jq -r .summary.rating_basis "$R")" "; high finding SILENT_TRUNCATION;" "the rating names the open high finding"
run vendor show acme
is "$(printf '%s\n' "$out" | grep '^  findings ')" "  findings     open: 1 high" "vendor show agrees"

# A final round with a newer draft beside it (reopened, its answers copied):
# the rating reads the final round, so do the summary's counts; the draft's
# claims are listed in their own round, counted apart, never twice over.
run --actor carol assess reopen 1
is "$out" "assessment 1 reopened as assessment 2 (new round, draft)" "a second round is opened as a draft"
run report acme --out "$T/b3" --at 2026-11-30T08:00:00Z
R="$T/b3/report.json"
is "$(jq -c '[.assessments[] | [.id, .status, .rating_reads]]' "$R")" '[[1,"final",true],[2,"draft",false]]' \
	"the rating reads the final round, not the draft beside it"
final=$(jq '[.claims[] | select(.assessment_id == 1 and .status == "contradicted")] | length' "$R")
draft=$(jq '[.claims[] | select(.assessment_id == 2 and .status == "contradicted")] | length' "$R")
is "$final $draft" "1 1" "each round has its contradicted claim (both judged on the same evidence)"
is "$(jq -r '.summary.claims | [.contradicted, .contradicted_not_rated] | map(tostring) | join(" ")' "$R")" "$final $draft" \
	"summary: the final round's claims counted, the draft's apart"
is "$(jq -r '[.summary.contradicted_claims[] | .assessment_id] | map(tostring) | join(" ")' "$R")" "1" \
	"the summary lists the final round's contradicted claim once"
q=$(jq -r '[.claims[] | select(.assessment_id == 1 and .status == "contradicted") | .question_id] | .[0]' "$R")
is "$(grep "^| $q | round [12] of assessment [12] (" "$T/b3/report.md" | grep -c ' | contradicted | ')" 3 \
	"report.md: the contradicted claim ($q) once in the summary and once per round below, each with its round"
like "$(cat "$T/b3/report.md")" "round 2 of assessment 2 \(draft; the rating does not read it\)" "the draft's round says the rating does not read it"
done_testing
