#!/bin/sh
# cli-approved-at.sh: a final round keeps what was approved. Bob approves a
# round rated concerns; a later probe run contradicts one of its claims and
# the round is rated worse. Every surface shows the rating and score at
# approval beside today's, with what changed, in the one sentence: assess
# show and list (text and JSON), vendor show and list, the TUI's dashboard,
# and report.json, report.md, report.html and the OSCAL results. The numbers
# expected are those assess show gave before and after the run.
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/tui-lib.sh"
# has TEXT FIXED DESCRIPTION: TEXT holds FIXED (no pattern: the sentence has parentheses).
has() {
	if printf '%s' "$1" | grep -qF -- "$2"; then ok 0 "$3"; else
		ok 1 "$3"
		printf '%s\n' "$1" | grep -m3 'approved' | sed 's/^/#   text: /'
		printf '%s\n' "#   lacks: $2"
	fi
}

cat >"$T/q.json" <<'Q'
{"id":"approved-at","version":1,"title":"Approved at","sections":[{"id":"s","title":"Isolation","questions":[
{"id":"isolation","text":"Are tenants isolated?","type":"single_choice","required":true,"choices":[{"value":"yes","risk":"none"},{"value":"partly","risk":"medium"},{"value":"no","risk":"critical"}]},
{"id":"usage_reported","text":"Is token usage reported on every response?","type":"yes_no","choices":[{"value":"yes","risk":"none"},{"value":"no","risk":"low"}],"verified_by":[{"probe":"sweep","confirms":"yes"}],"contradicted_by":["USAGE_MISSING"]}]}]}
Q
"$AIVET" questionnaire import "$T/q.json" >/dev/null
"$AIVET" vendor add V >/dev/null
"$AIVET" endpoint add V --name prod --api openai --url https://api.example.com/v1 --model m --context 8192 >/dev/null
"$AIVET" --actor alice assess start V approved-at >/dev/null
"$AIVET" --actor alice assess answer 1 isolation partly >/dev/null
"$AIVET" --actor alice assess answer 1 usage_reported yes >/dev/null
"$AIVET" --actor alice assess submit 1 >/dev/null
approver_key bob
run --actor bob assess approve 1
is "$rc" 0 "bob approves round 1$errout"
run assess show 1 --json
r0=$(printf '%s' "$out" | jq -r .score.rating) s0=$(printf '%s' "$out" | jq -r '.score.risk_score | . * 10 | round / 10')
is "$r0" concerns "approved at concerns"
is "$(printf '%s' "$out" | jq -r '"\(.approved_score.rating) \(.approved_score.risk_score) \(.since_approval)"')" \
	"$r0 $s0 approved at $r0 $(printf '%.1f' "$s0"); unchanged" "unchanged since approval, and said so"

# A later run finds usage missing: the usage claim is contradicted.
sqlite3 "$AIVET_DB" <<'SQL'
INSERT INTO probe_run (id, endpoint_id, status, probes, tokens_in, tokens_out, actor, started_at, finished_at)
  VALUES (7, 1, 'completed', '["sweep"]', 10, 1, 'alice', '2026-11-10T10:00:00.000Z', '2026-11-10T10:05:00.000Z');
INSERT INTO probe_result (run_id, probe, verdict, reason, requests) VALUES (7, 'sweep', 'pass', NULL, 3);
INSERT INTO finding (run_id, probe, code, severity, message) VALUES (7, 'sweep', 'USAGE_MISSING', 'info', 'no usage in 3 responses');
SQL
python3 "$TESTS_SRCDIR/lib/seal-rows.py" "$AIVET_DB"
run assess show 1 --json
r1=$(printf '%s' "$out" | jq -r .score.rating) s1=$(printf '%s' "$out" | jq -r .score.risk_score)
is "$r1 $(printf '%s' "$out" | jq -r .score.contradicted_by)" "unacceptable usage_reported: USAGE_MISSING on V/prod" \
	"today the round is unacceptable: its claim is contradicted"
S="approved at $r0 $(printf '%.1f' "$s0"); now $r1 $(printf '%.1f' "$s1"): 1 claim contradicted (usage_reported: USAGE_MISSING on V/prod)"
is "$(printf '%s' "$out" | jq -r '"\(.approved_score.rating) \(.since_approval)"')" "$r0 $S" \
	"assess show --json: the rating at approval and the sentence"
run assess show 1
like "$out" "  approved [^ ]+Z by bob
  $S
" "assess show: under the approval line"
run assess list
is "$(printf '%s\n' "$out" | sed -n 2p | sed -E 's/.* 0 +//')" "$S" "assess list: the APPROVAL column"
run assess list --json
is "$(printf '%s' "$out" | jq -r '.[0].since_approval')" "$S" "assess list --json"
run vendor show V --json
has "$(printf '%s' "$out" | jq -r '.rating_basis')" "final round 1 of approved-at $r1 (score $(printf '%.1f' "$s1")), $S;" \
	"vendor show: the rating's basis carries it"
is "$(printf '%s' "$out" | jq -r '.since_approval')" "$S" "vendor show --json: since_approval"
run vendor show V
has "$out" "  rating       $r1: final round 1 of approved-at $r1 (score $(printf '%.1f' "$s1")), $S;" "vendor show: its rating line"
run vendor list --json
is "$(printf '%s' "$out" | jq -r '.[0].since_approval')" "$S" "vendor list --json"

"$AIVET" key generate --no-password >/dev/null
run report V --out "$T/b"
is "$rc" 0 "the report is written$errout"
# The report gives the sentence every surface gives (aivet(1)), VENDOR/ENDPOINT included.
R=$S
is "$(jq -r '.assessments[0] | "\(.approved_score.rating) \(.since_approval)"' "$T/b/report.json")" "$r0 $R" "report.json"
is "$(jq -r '.summary | "\(.rating) \(.since_approval)"' "$T/b/report.json")" "$r1 $R" \
	"report.json's summary says what the round was approved at, as vendor list does"
has "$(cat "$T/b/report.md")" "by bob, $R." "report.md"
has "$(cat "$T/b/report.html")" "by bob, $R." "report.html"
is "$(jq -r '.["assessment-results"].results[0].props[] | select(.name == "since-approval") | .value' "$T/b/oscal-assessment-results.json")" \
	"assessment 1: $R" "the OSCAL results"
v=$(python3 "$TESTS_SRCDIR/lib/oscal-validate.py" "$TESTS_SRCDIR/data/oscal_assessment-results_schema-1.0.6.json" "$T/b/oscal-assessment-results.json" 2>&1)
is "$v" "0 errors" "which still validate against the OSCAL 1.0.6 schema"

tui_start 120x40 tui
tui_wait "Vendors by rating"
like "$(tui_screen)" "V +$r1 +score $(printf '%.1f' "$s1"), approved at $r0 $(printf '%.1f' "$s0")" "the TUI's dashboard"
tui_stop
done_testing
