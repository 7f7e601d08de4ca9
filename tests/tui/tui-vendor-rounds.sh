#!/bin/sh
# tests/tui/tui-vendor-rounds.sh: the vendor screen lists every round in work
# of the vendor's questionnaires (draft or in review), with its questionnaire,
# round, status and how many of its asked questions are answered, as vendor
# show does: not only the newest draft the rating names. At 80x24, a long
# questionnaire name is cut in the middle so that the count stays whole; more
# rounds than the header holds end with how many more; a vendor with none
# says none; the endpoints stay below, selectable.
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/tui-lib.sh"
D="$TESTS_SRCDIR/data"

"$AIVET" vendor add acme >/dev/null
"$AIVET" vendor add beta >/dev/null
"$AIVET" endpoint add acme --name prod --api openai --url http://127.0.0.1:8443/v1 --model m \
	--context 8192 >/dev/null
"$AIVET" questionnaire import "$D/scoring-questionnaire.json" >/dev/null
"$AIVET" assess start acme scoring-test >/dev/null
"$AIVET" --actor alice assess answer 1 gate no >/dev/null
"$AIVET" --actor alice assess answer 1 notify 24h >/dev/null
"$AIVET" --actor alice assess submit 1 >/dev/null
approver_key bob
"$AIVET" --actor bob assess approve 1 >/dev/null
"$AIVET" assess reopen 1 >/dev/null                       # 2: scoring-test round 2, draft
"$AIVET" assess start acme llm-inference-isolation >/dev/null   # 3
"$AIVET" assess start acme hipaa-ai-vendor >/dev/null          # 4
"$AIVET" assess answer 4 "$(jq -r '.sections[0].questions[0].id' "$TESTS_SRCDIR/../questionnaires/hipaa-ai-vendor.json")" \
	"$(jq -r '.sections[0].questions[0] | if .type == "yes_no" then "yes" elif .choices then .choices[0].value else "x" end' \
	"$TESTS_SRCDIR/../questionnaires/hipaa-ai-vendor.json")" >/dev/null
# A round goes to review with its required questions answered.
for qa in kv_cache_scope=per_tenant cache_isolation_tested=yes kv_pages_exposed=no \
	context_capacity_check=every_node_every_change over_limit_behaviour=error \
	release_tests_inspect_content=content pd_disaggregated=yes prompt_logging=metadata_only \
	training_on_customer_data=no exposure_notification_time=24h exposure_notification_channel=direct \
	past_cross_tenant_incidents=no kv_transfer_checked=yes log_retention=30d; do
	"$AIVET" --actor alice assess answer 3 "${qa%%=*}" "${qa#*=}" >/dev/null
done
"$AIVET" --actor alice assess submit 3 >/dev/null
is "$(sqlite3 "$AIVET_DB" "SELECT group_concat(id || ':' || round || ':' || status, ' ') FROM assessment")" \
	"1:1:final 2:2:draft 3:1:in_review 4:1:draft" "the rounds: a final round 1, then three in work, one in review"
# The counts, from outside the screen: answers with a value, and vendor show --json's asked.
count() { sqlite3 "$AIVET_DB" "SELECT count(*) FROM answer WHERE assessment_id = $1 AND value <> 'null'"; }
A2=$(count 2) A3=$(count 3) A4=$(count 4)
is "$A2 $A3 $A4" "2 14 1" "answered: 2 carried into round 2, the fourteen asked to submit, one"
run vendor show acme --json
K2=$(echo "$out" | jq -r '.in_work[] | select(.id == 2) | .asked')
K3=$(echo "$out" | jq -r '.in_work[] | select(.id == 3) | .asked')
K4=$(echo "$out" | jq -r '.in_work[] | select(.id == 4) | .asked')
is "$(echo "$out" | jq -c '[.in_work[] | [.id, .questionnaire, .round, .status, .answered]]')" \
	'[[2,"scoring-test",2,"draft",2],[3,"llm-inference-isolation",1,"in_review",14],[4,"hipaa-ai-vendor",1,"draft",1]]' \
	"vendor show --json: every round in work with its answered count"
like "$K2$K3$K4" '^[0-9]+$' "and how many are asked ($K2, $K3, $K4)"
run vendor show acme
is "$(printf '%s\n' "$out" | grep '^  round ')" "  round        assessment 2: scoring-test round 2, draft, $A2 of $K2 answered
  round        assessment 3: llm-inference-isolation round 1, in review, $A3 of $K3 answered
  round        assessment 4: hipaa-ai-vendor round 1, draft, $A4 of $K4 answered" "vendor show: the same, in words"

tui_start 80x24
tui_wait "aivet | Dashboard"
tui_keys L
tui_wait "aivet | Vendors (2)"
tui_keys g Enter
tui_wait "Vendor:      acme"
rows=$(tui_screen | sed 's/[[:space:]]*$//' | sed -n '/^  In work:/,/^$/p')
is "$rows" "  In work:     assessment 2: scoring-test round 2, draft, $A2 of $K2 answered
               assessment 3: llm-in…lation round 1, in review, $A3 of $K3 answered
               assessment 4: hipaa-ai-vendor round 1, draft, $A4 of $K4 answered" "80x24: every round in work, each with questionnaire, round, status and answered count (a name too long cut in the middle)"
like "$(tui_screen)" "ENDPOINT +API" "the endpoints below them"
tui_keys Enter
tui_wait "acme/prod"; ok $? "and the endpoint is still the one Enter opens"
tui_keys q
tui_wait "Vendor:      acme"
tui_keys q
tui_wait "aivet | Vendors (2)"
tui_keys G Enter
tui_wait "Vendor:      beta"
like "$(tui_screen)" "  In work:     none" "a vendor with no round in work says none"
tui_stop

# A questionnaire id too long for 80 columns is cut in the middle; the count stays.
jq '.id = "a-questionnaire-with-a-rather-long-identifier" | .version = 1' "$D/scoring-questionnaire.json" > "$T/long.json"
"$AIVET" questionnaire import "$T/long.json" >/dev/null
jq '.id = "other-test"' "$D/scoring-questionnaire.json" > "$T/other.json"
"$AIVET" questionnaire import "$T/other.json" >/dev/null
"$AIVET" assess start beta a-questionnaire-with-a-rather-long-identifier >/dev/null
"$AIVET" assess start beta scoring-test >/dev/null
"$AIVET" assess start beta llm-inference-isolation >/dev/null
"$AIVET" assess start beta hipaa-ai-vendor >/dev/null
"$AIVET" assess start beta other-test >/dev/null
"$AIVET" assess start acme a-questionnaire-with-a-rather-long-identifier >/dev/null
tui_start 80x24
tui_wait "aivet | Dashboard"
tui_keys L
tui_wait "aivet | Vendors (2)"
tui_keys G Enter
tui_wait "Vendor:      beta"
line=$(tui_screen | grep 'In work:' | sed 's/[[:space:]]*$//')
like "$line" "^  In work:     assessment 5: a-questio…dentifier round 1, draft, 0 of [0-9]+ answered$" \
	"80x24: the long name cut in the middle, round, status and count whole"
is "$(printf '%s' "$line" | wc -m)" 80 "within 80 columns"
is "$(tui_screen | sed 's/[[:space:]]*$//' | sed -n '/In work:/,/^$/p' | sed -n 4p)" \
	"               and 2 more (s lists the assessments)" "five rounds: three shown, then how many more"
tui_stop
done_testing
