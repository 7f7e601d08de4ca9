#!/bin/sh
# tests/cli/assess-rounds.sh: one round at a time. Starting a questionnaire
# for a vendor that has a round of it in work is refused, naming that round
# (assess start and assess import --start); after a final round, reopen
# starts round N+1 and start says so; vendor show lists every round in work;
# report --assessment N works for a vendor with two final rounds; the file
# itself takes one round N+1 after a round, never two (db/015-rounds.sql).
. "$TESTS_SRCDIR/lib/lib.sh"
D="$TESTS_SRCDIR/data"

"$AIVET" vendor add acme >/dev/null
"$AIVET" questionnaire import "$D/scoring-questionnaire.json" >/dev/null
run assess start acme scoring-test
is "$rc" 0 "round 1 starts"
before=$(db_snapshot)
run assess start acme scoring-test
is "$rc:$errout" "2:aivet: the vendor already has draft 1 of scoring-test (round 1, draft): one round at a time; answer it there, or submit and approve it first" \
	"a second start beside the draft is refused, naming the draft"
is "$(db_snapshot)" "$before" "and changes nothing"
"$AIVET" assess export 1 --format xlsx --output "$T/sheet.xlsx" >/dev/null
run assess import --start acme "$T/sheet.xlsx"
is "$rc:$(printf '%s\n' "$errout" | grep -c 'already has draft 1 of scoring-test (round 1, draft): one round at a time')" "2:1" \
	"assess import --start beside the draft: refused the same way"
is "$(db_snapshot)" "$before" "and changes nothing"
is "$(sqlite3 "$AIVET_DB" "SELECT count(*) FROM assessment")" 1 "one round, not two"

# Final round 1: start points to reopen; reopen is round 2.
final() { # final ID: answered, submitted, approved by another
	"$AIVET" --actor alice assess answer "$1" gate no >/dev/null
	"$AIVET" --actor alice assess answer "$1" notify 24h >/dev/null
	"$AIVET" --actor alice assess submit "$1" >/dev/null
	[ -f "$XDG_CONFIG_HOME/aivet/keys/bob.pub" ] || approver_key bob
	"$AIVET" --actor bob assess approve "$1" >/dev/null
}
final 1
is "$(sqlite3 "$AIVET_DB" "SELECT status FROM assessment WHERE id = 1")" final "round 1 is final"
run assess start acme scoring-test
is "$rc:$errout" "2:aivet: the vendor's scoring-test round 1 is final (assessment 1): 'aivet assess reopen 1' starts round 2 from its answers" \
	"start after a final round is refused, naming reopen and round 2"
run assess reopen 1
is "$rc:$out" "0:assessment 1 reopened as assessment 2 (new round, draft)" "reopen starts the next round"
is "$(sqlite3 "$AIVET_DB" "SELECT round || ' ' || parent_id FROM assessment WHERE id = 2")" "2 1" "round 2, from round 1"
run assess start acme scoring-test
is "$rc:$errout" "2:aivet: the vendor already has draft 2 of scoring-test (round 2, draft): one round at a time; answer it there, or submit and approve it first" \
	"and no round 1 beside round 2"

# Every round in work is listed on the vendor, a second questionnaire's too.
run assess start acme hipaa-ai-vendor
is "$rc" 0 "another questionnaire starts its own round 1"
run vendor show acme
is "$(printf '%s\n' "$out" | grep '^  round ')" "  round        assessment 2: scoring-test round 2, draft, 2 of 6 answered
  round        assessment 3: hipaa-ai-vendor round 1, draft, 0 of 17 answered" \
	"vendor show lists every round in work, each with how many of its asked questions are answered"
is "$("$AIVET" vendor show acme --json | jq -c '[.in_work[] | [.id, .questionnaire, .round, .status]]')" \
	'[[2,"scoring-test",2,"draft"],[3,"hipaa-ai-vendor",1,"draft"]]' "vendor show --json: in_work"

# Two final rounds: a report of either.
final 2
"$AIVET" key generate --no-password >/dev/null
run report acme --assessment 2 --out "$T/r2"
is "$rc" 0 "report --assessment 2 for a vendor with two final rounds"
is "$(jq -r '[.summary.rating_basis, ([.assessments[] | .id] | map(tostring) | join(","))] | join(" | ")' "$T/r2/report.json")" \
	"final round 2 of scoring-test acceptable (score 0.0), approved at acceptable 0.0; unchanged; no probe run | 1,2" \
	"rated on its final round 2, round 1 before it"
run report acme --assessment 1 --out "$T/r1"
is "$rc:$(jq -r '.summary.rating_basis' "$T/r1/report.json")" "0:final round 1 of scoring-test acceptable (score 0.0), approved at acceptable 0.0; unchanged; no probe run" \
	"report --assessment 1: the earlier final round"

# The store holds the rule too: a final round goes on as one round N+1, never two.
before=$(db_snapshot)
is "$(sqlite3 "$AIVET_DB" "INSERT INTO assessment (vendor_id, questionnaire_id, round, parent_id, created_by,
	created_at) SELECT vendor_id, questionnaire_id, 2, 1, 'mallory', 'x' FROM assessment WHERE id = 1" 2>&1 | sed 's/.*UNIQUE/UNIQUE/')" \
	"UNIQUE constraint failed: assessment.parent_id (19)" \
	"a second round 2 after round 1, written in SQL: refused by the file"
is "$(db_snapshot)" "$before" "and changes nothing"
done_testing
