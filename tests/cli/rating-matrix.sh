#!/bin/sh
# rating-matrix.sh: one vendor rating, the same word on every surface. Five
# vendors, one case each: a final unacceptable round under a newer empty
# draft (the draft shows beside the rating, never in its place); a final
# round with nothing risky answered whose claim the evidence contradicts (the
# claim counts high, and the finding is named); open findings only; a finding
# a later run closed; nothing at all. vendor list (text and --json), vendor
# show, assess show and list, report.json, report.md and report.html, and the
# TUI's dashboard, vendor list and vendor screen (tmux, 120x40 and 80x24)
# must all say the same word.
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/tui-lib.sh"

Q='{"id":"matrix","version":1,"title":"Rating matrix","sections":[{"id":"s","title":"Isolation","questions":[
{"id":"isolation","text":"Are tenants isolated?","type":"yes_no","required":true,"choices":[{"value":"yes","risk":"none"},{"value":"no","risk":"critical"}]},
{"id":"usage_reported","text":"Is token usage reported on every response?","type":"yes_no","choices":[{"value":"yes","risk":"none"},{"value":"no","risk":"low"}],"verified_by":[{"probe":"sweep","confirms":"yes"}],"contradicted_by":["USAGE_MISSING"]}]}]}'
for v in "Draft Over" "Contra Claims" "Findings Only" "Fixed Later" "Nothing Yet"; do
	"$AIVET" vendor add "$v" >/dev/null
	"$AIVET" endpoint add "$v" --name prod --api openai --url https://api.example.com/v1 \
		--model m --context 8192 >/dev/null
done
q=$(printf '%s' "$Q" | sed "s/'/''/g")
sqlite3 "$AIVET_DB" <<EOF
INSERT INTO questionnaire (id, qid, version, title, source, sha256, bundled, loaded_at)
  VALUES (100, 'matrix', 1, 'Rating matrix', '$q', '$(printf '%s' "$Q" | sha256sum | cut -d' ' -f1)', 0, '2026-11-01T09:00:00.000Z');
-- Draft Over: round 1 final and unacceptable, round 2 an empty draft.
INSERT INTO assessment (id, vendor_id, questionnaire_id, round, status, created_by, created_at, submitted_at, approved_at, reviewer)
  VALUES (1, 1, 100, 1, 'draft', 'alice', '2026-11-02T09:00:00.000Z', '2026-11-03T09:00:00.000Z', '2026-11-04T09:00:00.000Z', 'bob');
INSERT INTO answer VALUES (1, 'isolation', '"no"', NULL, 'alice', '2026-11-02T10:00:00.000Z');
INSERT INTO answer VALUES (1, 'usage_reported', '"yes"', NULL, 'alice', '2026-11-02T10:00:00.000Z');
UPDATE assessment SET status = 'in_review' WHERE id = 1;
UPDATE assessment SET status = 'final' WHERE id = 1;
INSERT INTO assessment (id, vendor_id, questionnaire_id, round, parent_id, status, created_by, created_at)
  VALUES (2, 1, 100, 2, 1, 'draft', 'alice', '2026-11-20T09:00:00.000Z');
-- Contra Claims: every answer safe; the sweep run found usage missing.
INSERT INTO assessment (id, vendor_id, questionnaire_id, round, status, created_by, created_at, submitted_at, approved_at, reviewer)
  VALUES (3, 2, 100, 1, 'draft', 'alice', '2026-11-02T09:00:00.000Z', '2026-11-03T09:00:00.000Z', '2026-11-04T09:00:00.000Z', 'bob');
INSERT INTO answer VALUES (3, 'isolation', '"yes"', NULL, 'alice', '2026-11-02T10:00:00.000Z');
INSERT INTO answer VALUES (3, 'usage_reported', '"yes"', NULL, 'alice', '2026-11-02T10:00:00.000Z');
UPDATE assessment SET status = 'in_review' WHERE id = 3;
UPDATE assessment SET status = 'final' WHERE id = 3;
INSERT INTO probe_run (id, endpoint_id, status, probes, tokens_in, tokens_out, actor, started_at, finished_at)
  VALUES (1, 2, 'completed', '["sweep"]', 10, 1, 'alice', '2026-11-10T10:00:00.000Z', '2026-11-10T10:05:00.000Z');
INSERT INTO probe_result (run_id, probe, verdict, reason, requests) VALUES (1, 'sweep', 'pass', NULL, 3);
INSERT INTO finding (run_id, probe, code, severity, message) VALUES (1, 'sweep', 'USAGE_MISSING', 'info', 'no usage in 3 responses');
-- Findings Only: a cross-tenant leak, no assessment.
INSERT INTO probe_run (id, endpoint_id, status, probes, tokens_in, tokens_out, actor, started_at, finished_at)
  VALUES (2, 3, 'completed', '["canary"]', 10, 1, 'alice', '2026-11-10T10:00:00.000Z', '2026-11-10T10:05:00.000Z');
INSERT INTO probe_result (run_id, probe, verdict, reason, requests) VALUES (2, 'canary', 'fail', 'leak', 2);
INSERT INTO finding (run_id, probe, code, severity, message) VALUES (2, 'canary', 'LEAK_CROSS_TENANT', 'critical', 'tenant b read tenant a');
-- Fixed Later: the same leak, then a later run of the same probe passed.
INSERT INTO probe_run (id, endpoint_id, status, probes, tokens_in, tokens_out, actor, started_at, finished_at)
  VALUES (3, 4, 'completed', '["canary"]', 10, 1, 'alice', '2026-11-10T10:00:00.000Z', '2026-11-10T10:05:00.000Z');
INSERT INTO probe_result (run_id, probe, verdict, reason, requests) VALUES (3, 'canary', 'fail', 'leak', 2);
INSERT INTO finding (run_id, probe, code, severity, message) VALUES (3, 'canary', 'LEAK_CROSS_TENANT', 'critical', 'tenant b read tenant a');
INSERT INTO probe_run (id, endpoint_id, status, probes, tokens_in, tokens_out, actor, started_at, finished_at)
  VALUES (4, 4, 'completed', '["canary"]', 10, 1, 'alice', '2026-11-20T10:00:00.000Z', '2026-11-20T10:05:00.000Z');
INSERT INTO probe_result (run_id, probe, verdict, reason, requests) VALUES (4, 'canary', 'pass', NULL, 2);
EOF
# Sealed as aivet's writers seal what they write: the reports vouch for them.
python3 "$TESTS_SRCDIR/lib/seal-rows.py" "$AIVET_DB"

# name: the word every surface must give
want() {
	case $1 in
	"Draft Over") echo unacceptable ;;
	"Contra Claims") echo unacceptable ;;
	"Findings Only") echo unacceptable ;;
	"Fixed Later") echo acceptable ;;
	"Nothing Yet") echo not-assessed ;;
	esac
}

# ---- the command line ----
run vendor list --json
for v in "Draft Over" "Contra Claims" "Findings Only" "Fixed Later" "Nothing Yet"; do
	w=$(want "$v")
	is "$(printf '%s' "$out" | jq -r --arg v "$v" '.[] | select(.name == $v) | .rating')" "$w" "$v: vendor list --json says $w"
	is "$("$AIVET" vendor list | awk -v v="$v" 'index($0, v) { print $NF }')" "$w" "$v: vendor list says $w"
	is "$("$AIVET" vendor show "$v" --json | jq -r .rating)" "$w" "$v: vendor show --json says $w"
	like "$("$AIVET" vendor show "$v")" "^  rating       $w: " "$v: vendor show says $w"
done
is "$(printf '%s' "$out" | jq -c '.[] | select(.name == "Draft Over") | .draft')" \
	'{"id":2,"round":2,"status":"draft","rating":"incomplete","score":0}' "the draft is beside the rating, not in its place"
is "$(printf '%s' "$out" | jq -r '.[] | select(.name == "Draft Over") | .rating_basis')" \
	"final round 1 of matrix unacceptable (score 50.0); no probe run" "the rating names the round it rests on"
is "$(printf '%s' "$out" | jq -r '.[] | select(.name == "Findings Only") | .rating_basis')" \
	"no final round; critical finding LEAK_CROSS_TENANT" "findings only: the finding is named"
is "$(printf '%s' "$out" | jq -r '.[] | select(.name == "Fixed Later") | .rating_basis')" \
	"no final round; no open finding" "a later pass closes the earlier finding"

# The assessment: a contradicted claim counts high, and names its finding.
run assess show 3 --json
is "$(printf '%s' "$out" | jq -r '[.score.rating, .score.worst_risk, .score.contradicted_claims, .score.contradicted_by] | join(" ")')" \
	"unacceptable high 1 usage_reported: USAGE_MISSING on Contra Claims/prod" "assess show --json: the contradicted claim counts high"
is "$(printf '%s' "$out" | jq -r '.questions[] | select(.id == "usage_reported") | "\(.risk) \(.stated_risk)"')" \
	"high none" "the answer's risk is high, its stated risk none"
run assess show 3
like "$out" "rating unacceptable, risk score 37.5 \(worst answer high\)" "assess show: unacceptable"
like "$out" "1 contradicted claim counted high risk: usage_reported: USAGE_MISSING on Contra Claims/prod" "assess show names the finding"
like "$out" "  high     usage_reported" "assess show: the answer is marked high"
run assess list --json
is "$(printf '%s' "$out" | jq -r '[.[] | "\(.id)=\(.rating)"] | join(" ")')" "1=unacceptable 2=incomplete 3=unacceptable" \
	"assess list --json rates each round as assess show does"
is "$("$AIVET" assess list | awk '$1 == 3 { print $(NF - 3) }')" "unacceptable" "assess list: the same word"

# ---- the signed report ----
"$AIVET" key generate --no-password >/dev/null
for v in "Draft Over" "Contra Claims" "Findings Only" "Fixed Later" "Nothing Yet"; do
	w=$(want "$v")
	rm -rf "$T/rep"
	"$AIVET" report "$v" --out "$T/rep" >/dev/null
	is "$(jq -r .summary.rating "$T/rep/report.json")" "$w" "$v: report.json says $w"
	like "$(cat "$T/rep/report.md")" "Overall rating: \*\*$w\*\*" "$v: report.md says $w"
	like "$(cat "$T/rep/report.html")" "Overall rating: <span class=\"rating rating-$w\">$w</span>" "$v: report.html says $w"
done
rm -rf "$T/rep"
"$AIVET" report "Contra Claims" --out "$T/rep" >/dev/null
is "$(jq -r '.assessments[0] | "\(.rating) \(.contradicted_claims)"' "$T/rep/report.json")" "unacceptable 1" \
	"report.json: the assessment is rated as assess show rates it"

# ---- the TUI ----
for size in 120x40 80x24; do
	tui_start "$size" tui
	tui_wait "Vendors by rating"
	for v in "Draft Over" "Contra Claims" "Findings Only" "Fixed Later" "Nothing Yet"; do
		w=$(want "$v")
		is "$(tui_screen | grep -F "$v" | head -1 | awk -v v="$v" '{ i = index($0, v); s = substr($0, i + length(v)); sub(/^ +/, "", s); split(s, a, " "); print a[1] }')" \
			"$w" "$v: the dashboard says $w ($size)"
	done
	like "$(tui_screen | grep -F "Draft Over" | sed "s/ *$//")" "unacceptable +score 50.0; draft round 2 incomplete$" \
		"the dashboard shows the draft beside the rating ($size)"
	tui_keys L; tui_wait "RATING"
	for v in "Draft Over" "Contra Claims" "Findings Only" "Fixed Later" "Nothing Yet"; do
		w=$(want "$v")
		like "$(tui_screen | grep -F "$v")" "$v +$w " "$v: the vendor list says $w ($size)"
	done
	tui_stop
done
tui_start 120x40 tui
tui_wait "Vendors by rating"
tui_keys L; tui_wait "RATING"
tui_keys Enter; tui_wait "Vendor:      Contra Claims"
like "$(tui_screen)" "Rating: unacceptable, score 37.5" "the vendor screen says unacceptable"
tui_stop

done_testing
