#!/bin/sh
# tui-assess.sh: the assessment screen in tmux — reached from the vendor
# screen, start an assessment from a menu, answer three questions (two from
# choice menus, one typed and checked as typed), a note, the history view,
# symbols that read without colour, submit; then the CLI's assess show --json
# must hold exactly what was entered.
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/tui-lib.sh"

run vendor add acme
VL=$(jq -e .version "$TESTS_SRCDIR/../questionnaires/llm-inference-isolation.json")
tui_start 100x30
tui_wait "acme"; ok $? "the vendor list"
tui_keys Enter
tui_wait "Vendor:      acme"; ok $? "Enter opens the vendor"
tui_keys s
tui_wait "No assessments of acme yet. Press a to start one."; ok $? "s lists the vendor's assessments"
tui_keys a
tui_wait "Start an assessment against"; ok $? "a offers the questionnaires in a menu"
tui_keys Down Enter
tui_wait "assessment 1 started: vendor acme, questionnaire llm-inference-isolation version $VL"; \
	ok $? "the CLI's own words in the status line"
tui_keys Enter
tui_wait "Assessment 1 (draft)"; ok $? "Enter opens the assessment"
like "$(tui_screen)" "! +kv_cache_scope" "a required unanswered question is marked !, not by colour alone"
like "$(tui_screen)" "\? +cache_isolation_tested" "an optional one ?"

# 1: a single choice from the menu.
tui_keys Tab Enter
tui_wait "per_tenant  low      Per tenant"; ok $? "Enter on a question opens its choices, with their risk"
tui_keys Down Enter
tui_wait "question kv_cache_scope: per_tenant (risk low)"; ok $? "first answer"
like "$(tui_screen)" "low +kv_cache_scope +per_tenant" "the answer and its risk in words"

# 2: n goes to the next unanswered question; yes/no from the menu.
tui_keys n
tui_wait "kv_pages_exposed (required): Can a request ever read"; ok $? "n jumps to the next unanswered"
tui_keys Enter
tui_wait "No: pages are bound"; ok $? "yes/no menu"
tui_keys Down Enter
tui_wait "question kv_pages_exposed: no (risk none)"; ok $? "second answer"

# 3: a duration, typed and checked as it is typed.
tui_keys Left G Right
tui_wait "exposure_notification_time (required): How soon"; ok $? "G and Right reach the last section's questions"
tui_keys Enter
tui_type soon
tui_wait "'soon' is not a duration like 24h or 5d (units m, h, d, w)"; ok $? "a bad value is refused as it is typed"
tui_keys C-u
tui_type 24h
tui_keys Enter
tui_wait "question exposure_notification_time: 24h (risk none)"; ok $? "third answer"

# A note, then the history.
tui_keys N
tui_type "per contract 7.3"
tui_keys Enter
tui_wait "Note: per contract 7.3"; ok $? "N adds a note"
tui_keys H
tui_wait "History of exposure_notification_time"; ok $? "H shows the history"
like "$(tui_screen)" "tester +24h +per contract 7.3" "with actor, value and note"
tui_keys q
tui_wait "Assessment 1 (draft)"; ok $? "q returns to the assessment"
tui_wait "3/22 answered  8 required"; ok $? "the summary counts the answers"

# Submit is refused while required questions are open, in the CLI's words, before
# any question is put.
tui_keys S
tui_wait "error: assessment 1 has 8 unanswered required questions: "; \
	ok $? "submit refused while required questions are open, naming them as assess submit does"
unlike "$(tui_screen)" "Submit assessment 1 for review" "refused before any question is put"
sleep 0.6   # keys typed straight after a refusal are dropped

run assess show 1 --json
is "$(printf '%s' "$out" | json '[.questions[] | select(.value != null) | "\(.id)=\(.value) \(.note) \(.actor)"] | join("; ")')" \
	"kv_cache_scope=per_tenant null tester; kv_pages_exposed=no null tester; exposure_notification_time=24h per contract 7.3 tester" \
	"assess show --json holds the three answers"
is "$(printf '%s' "$out" | json '"\(.status) \(.score.rating) \(.score.answered) \(.score.unanswered_required)"')" \
	"draft incomplete 3 8" "status and score: still a draft, incomplete while required answers are missing"

# The evidence speaks beside the answer: a cross-tenant leak contradicts per_tenant.
run endpoint add acme --name prod --api openai --url https://api.acme.example/v1 --model m \
	--context 8192 --credential a=env:KEY_A --credential b=env:KEY_B
sqlite3 "$AIVET_DB" "INSERT INTO probe_run (id, endpoint_id, status, probes, actor, started_at, finished_at)
	VALUES (1, 1, 'completed', '[\"canary\"]', 't', '2026-11-30T09:00:00.000Z', '2026-11-30T09:01:00.000Z');
	INSERT INTO probe_result (run_id, probe, verdict, reason) VALUES (1, 'canary', 'fail', '1 finding');
	INSERT INTO finding (id, run_id, probe, code, severity, message)
	VALUES (1, 1, 'canary', 'LEAK_CROSS_TENANT', 'critical', 'a response to tenant b held tenant a''s canary');"
tui_keys h g l g
tui_wait "kv_cache_scope                 per_tenant  contradicted"; ok $? "a contradicted claim is marked beside its answer"
tui_wait "Contradicted on acme/prod: LEAK_CROSS_TENANT in run 1 (canary)"; \
	ok $? "the selected answer shows the finding that contradicts it"
like "$(tmux -S "$TMUX_SOCK" capture-pane -e -p | grep 'Contradicted on acme/prod')" \
	'\[[0-9;]*31m *Contradicted on' "in red, as a contradicted claim is (the word says it without colour)"
# At 80x24 the answer is cut, never the risk or the claim's status, nor the header's rating.
tui_resize 80x24
sleep 0.5
like "$(tui_screen | grep 'kv_cache_scope' | head -1)" "│ high +kv_cache_scope +per_tenant  contradicted *$" \
	"80x24: the row keeps its risk and its claim's status"
is "$(tui_screen | grep 'kv_cache_scope' | head -1 | sed 's/ *$//; s/.* //')" \
	"$("$AIVET" assess show 1 | sed -n 's/^  kv_cache_scope  *per_tenant  *acme\/prod  *//p')" \
	"the claim word beside the answer is assess show's for the same claim"
like "$(tui_screen | sed -n 2p)" "^ unacceptable \(score [0-9.]+\)  draft  3/22 answered  8 required open" \
	"80x24: the header leads with the rating and score"
tui_resize 100x30
sleep 0.3

# With every required question answered, submit works; in review the answers lock.
# (An answer can ask further questions: answer until none is open.)
for pass in 1 2 3 4 5 6; do
	for qid in $("$AIVET" assess show 1 --json | jq -r '.questions[] | select(.asked and .required and .value == null) | .id'); do
		v=$(jq -r --arg q "$qid" '.sections[].questions[] | select(.id == $q) |
			if .type == "duration" then "24h" elif .type == "number" then "131072"
			elif .type == "text" then "see contract" else (.choices // [])[0].value end' \
			"$TESTS_SRCDIR/../questionnaires/llm-inference-isolation.json")
		"$AIVET" --actor alice assess answer 1 "$qid" "$v" >/dev/null
	done
done
tui_keys S
tui_wait "Submit assessment 1 for review?"; ok $? "complete, S asks first"
tui_keys y
tui_wait "assessment 1 submitted for review"; ok $? "submitted once complete"
tui_keys Enter
tui_wait "error: in review, answers locked: U returns it to draft"; \
	ok $? "in review, Enter says the answers are locked and how to unlock them, before any dialog"
sleep 0.6
tui_keys S
tui_wait "error: already in review: V approves it, U returns it to draft"; ok $? "S again says it is in review"
sleep 0.6
tui_keys V
tui_wait "tester cannot approve assessment 1: tester answered and submitted it"; \
	ok $? "approval refused, in the CLI's words"
unlike "$(tui_screen)" "Approve assessment 1" "refused before any question is put"
sleep 0.6

tui_q_out
tui_wait "[exit 0]"; ok $? "q back to the end quits with status 0"
tui_stop

# A many-of choice shows one cursor: "> " is the current item, [x] what is picked.
run vendor add beta
run assess start beta llm-inference-isolation
tui_start 80x24
tui_wait "Dashboard"
tui_keys L; tui_wait "Vendors"
tui_keys /; tui_type beta; tui_keys Enter; tui_wait "filter: beta"
tui_keys Enter; tui_wait "Vendor:      beta"
tui_keys s; tui_wait "Assessments of beta"
tui_keys Enter; tui_wait "Assessment 2 (draft)"
tui_keys G Tab j Enter
tui_wait "Space toggles, Enter accepts, Esc cancels"; ok $? "80x24: Enter opens the many-of menu"
tui_keys Space j Space j
tui_wait "[x] status_page"
# The dialog's lines from border to border (the question's detail shows beside it).
dialog=$(tui_screen | grep -F '│ ' | grep -E 'direct|status_page|on_request' |
	sed 's/^.*\(│   \[\|│ > \[\)/  \1/; s/\(.*│\).*$/\1/')
is "$dialog" "  │   [x] direct      none     Directly (email or phone to named contacts)   │
  │   [x] status_page low      Public status page                            │
  │ > [ ] on_request  high     Only when a customer asks                     │" \
	"80x24: one cursor, on the current item; the picked ones marked [x] alone"
tui_keys Enter
tui_wait "question exposure_notification_channel: direct,status_page (risk low)"; ok $? "80x24: the picked ones are the answer"
tui_resize 120x40
sleep 0.3
tui_keys Enter
tui_wait "Space toggles, Enter accepts, Esc cancels"
is "$(tui_screen | grep -cE '│ > ')" 1 "120x40: the menu opened again has one cursor"
like "$(tui_screen)" "│ > \[x\] direct      none     Directly" "120x40: on the first item, picked"
tui_keys Escape
tui_stop
done_testing
