#!/bin/sh
# probe-cost.sh: what a run plans to spend and what it sends, per depth. The
# plan's two figures (at most: every request billed; expected: a vendor that
# refuses, and does not bill, prompts over its context) pinned exactly for a
# 4,096-token context at USD 3 / 15 per million tokens (at most: prompts given
# in words at 4 tokens a word, 256 tokens of template each, count requests included); verify sends the top
# of the context where diagnose sweeps fractions and searches; the run keeps
# what the vendor billed beside the plan; diagnose sends twice the canary
# rounds; a verify failure's findings record only what was seen, and probe
# show adds the diagnose command that locates the boundary, or for the canary
# looks further, with the plan its --dry-run prints, computed when shown.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib/lib.sh"
. "$TESTS_SRCDIR/lib/sim-lib.sh"
. "$TESTS_SRCDIR/lib/probe-lib.sh"

# plan DEPTH: the figures of the dry-run plan at DEPTH.
plan() {
	"$AIVET" probe run V/e --dry-run --json --depth "$1" 2>/dev/null | jq -c '[.depth, .requests,
	    .tokens_in, .tokens_in_expected, .tokens_out, .cost_usd, .cost_usd_expected,
	    [.probes[] | [.name, .requests, .tokens_in, .tokens_in_expected]]]'
}

sim_start --context 4096 --pool 4096 --tenants "$PROBE_TENANTS" || exit 1
probe_setup openai 4096 --price-in 3 --price-out 15
# verify's sweep: the top (3,973 tokens) twice and 1% streamed, 2 * 3973 + 40;
# USD: 70,194 * 3 / 1e6 + 1,792 * 15 / 1e6.
is "$(plan verify)" '["verify",33,70194,23852,1792,0.237462,0.098436,[["calibration",4,5312,2480],["echo",2,1024,336],["oversize",4,26012,0],["sweep",3,7986,7986],["canary",16,28580,12650],["errors",4,1280,400]]]' "plan, verify: at most and expected, per probe and in USD"
# diagnose's sweep: the fractions, the 97% point 3 times more (3 * 3,973 = 11,920 tokens).
is "$(plan diagnose)" '["diagnose",63,132341,48463,3712,0.452703,0.201069,[["calibration",4,5312,2480],["echo",2,1024,336],["oversize",4,26012,0],["sweep",21,59187,28467],["canary",28,39526,16780],["errors",4,1280,400]]]' "plan, diagnose: the fractions, the repeated top, searches and canary rounds on top"
is "$("$AIVET" probe run V/e --dry-run --json 2>/dev/null | jq -r .depth)" verify "verify is the default depth"
run probe run V/e --dry-run
is "$(printf '%s\n' "$out" | grep -e '^  total ' -e '^  expected ' -e '^  sweep sends ')" \
"  total           33 requests           70,194 tokens in      1,792 out  (about USD 0.24)
  expected                              23,852 tokens in  (about USD 0.10) against a vendor as advertised (oversize prompts refused, not billed); depth verify
  sweep sends the top of the context 2 times: a fault on one request in 4 shows on at least one with 43% confidence (--depth diagnose: 4 times, 68%; a budget covering them: up to 8, 89%)" \
    "the text plan: each line priced at its own tokens, and the sweep's confidence"
like "$out" "expected +[0-9,]+ tokens in  \(about USD [0-9.]+\) against a vendor as advertised \(oversize prompts refused, not billed\); depth verify" \
    "the text plan shows the expected figure beside the at-most one"
run probe run V/e --dry-run --depth deep
is "$rc" 2 "an unknown depth is refused"

run probe run V/e --yes --json
is "$rc:$(verdicts)" "0:echo:pass oversize:pass sweep:pass canary:pass errors:pass" "verify: a correct vendor passes"
is "$(q "SELECT group_concat(streaming || ':' || (request_size > 5000), ',') FROM exchange WHERE run_id = 1 AND probe = 'sweep'")" "0:1,0:1,1:0" \
    "verify: the sweep sends the top of the context plain twice, and a small prompt streamed"
is "$(q "SELECT group_concat(tenant || ':' || streaming, ',') FROM (SELECT tenant, streaming FROM exchange
    WHERE run_id = 1 AND probe = 'canary' AND request_size > 5000 ORDER BY seq)")" \
    "alice:0,alice:1,bob:1,bob:1" \
    "verify: the last tenant's near-limit canary load is streamed and stands for the sweep's streamed top point"
is "$(q "SELECT count(*) FROM exchange WHERE run_id = 1 AND probe = 'canary'") $(printf '%s' "$out" | jq -c '.probes[] | select(.name == "canary") | [.details.per_tenant[] | [.tenant, .sent]]')" \
    '16 [["alice",6],["bob",6]]' \
    "verify: the canary sends what it planned, 2 rounds: 16 requests, 6 canaries per tenant (2 quiet, 2 before and 2 under the other's load)"
billed=$(printf '%s' "$out" | jq '.plan.billed.tokens_in')
counted=$(printf '%s' "$out" | jq '.tokens_in')
ok "$([ "$billed" -gt 0 ] && [ "$billed" -lt "$counted" ] && echo 0 || echo 1)" \
    "the run keeps what was billed ($billed) beside what it sent ($counted): refusals are not billed"
run probe run V/e --yes --json --depth diagnose
is "$rc:$(verdicts)" "0:echo:pass oversize:pass sweep:pass canary:pass errors:pass" "diagnose: the same verdicts"
is "$(q "SELECT count(*) >= 8 FROM exchange WHERE run_id = 2 AND probe = 'sweep'")" 1 \
    "diagnose: the sweep sends its fractions"
is "$(q "SELECT group_concat(tenant || ':' || streaming, ',') FROM (SELECT tenant, streaming FROM exchange
    WHERE run_id = 2 AND probe = 'canary' AND request_size > 5000 ORDER BY seq)")" \
    "alice:0,alice:1,bob:0,bob:1" "diagnose: the canary's near-limit load is its own, plain"
is "$(q "SELECT count(*) FROM exchange WHERE run_id = 2 AND probe = 'canary'") $(printf '%s' "$out" | jq -c '.probes[] | select(.name == "canary") | [.details.per_tenant[] | [.tenant, .sent]]')" \
    '28 [["alice",12],["bob",12]]' \
    "diagnose: the canary sends what it planned, 4 rounds: 28 requests, 12 canaries per tenant"
run probe run V/e --yes --json --budget-usd 0.05
is "$(printf '%s' "$out" | jq -r '.status')" budget_exhausted "--budget-usd: the run stops before overrunning it"
ok "$(printf '%s' "$out" | jq '(.tokens_in * 3 + .tokens_out * 15) / 1e6 <= 0.05' | grep -qx true; echo $?)" \
    "--budget-usd: what was counted, at the endpoint's prices, is within USD 0.05"
like "$(printf '%s' "$out" | jq -r '.probes[-1] | "\(.name): \(.verdict): \(.reason)"')" \
    "^oversize: inconclusive: not checked: the USD budget of USD 0.05 ran out before it \(checked before it: [a-z, ]+\); it plans at most [0-9,]+ input tokens$" \
    "--budget-usd: the partial verdict names the USD budget, what was checked and what was not"
is "$(printf '%s' "$out" | jq -r '[.probes[] | select(.reason | test("budget")) | .reason | sub(" \\(checked.*"; "")] | unique | join("|")')" \
    "not checked: the USD budget of USD 0.05 ran out before it|the USD budget of USD 0.05 was exhausted before the probe finished" \
    "--budget-usd: the probe it stopped and the one not run name the USD budget, never the token budget"
budget_run=$(printf '%s' "$out" | jq -r .id)
# The plan under a budget: at most the budget, with what the whole plan would cost.
run probe run V/e --dry-run --budget-usd 0.05
is "$(printf '%s\n' "$out" | grep -A1 '^  budget ' | tr -s ' ')" \
    " budget at most USD 0.05 (--budget-usd): the run stops there; the whole plan would cost about USD 0.24
 expected 23,852 tokens in (about USD 0.10) against a vendor as advertised (oversize prompts refused, not billed); depth verify" \
    "--budget-usd: the plan's at-most is the budget (the whole plan beside); the expected tokens at their own price"
run probe run V/e --dry-run
unlike "$out" "  budget " "without a budget, no budget line"
run probe run V/e --dry-run --budget-tokens 10000
# 10,000 of the plan's 71,986 tokens: 9,751 in at USD 3 and 248 out at USD 15 a million.
is "$(printf '%s\n' "$out" | grep '^  budget ')" "  budget       at most 10,000 tokens in and out (--budget-tokens, about USD 0.03): the run stops there; the whole plan sends 70,194 in and 1,792 out" \
    "--budget-tokens: at most the token budget, priced at the plan's mix of input and output, the whole plan beside"
# A budget that covers more repeats of the top buys them (at most 8): each costs at most
# 3,973 tokens in and 64 out, USD 0.012879, over the plan's 71,986 tokens, USD 0.237462;
# in USD the largest prompt's reservation at the dearer price is kept free (8,192 tokens
# at USD 15 - 3 a million: 0.098304), so 2 repeats need USD 0.335766 and each more 0.012879.
plan_repeats() {
	"$AIVET" probe run V/e --dry-run --json "$@" | jq -r '"\(.probes[] | select(.name == "sweep") | .requests) \(.sweep_repeats)"'
}
is "$(plan_repeats --budget-usd 0.38)" \
    "6 sweep sends the top of the context 5 times, as the budget covers them: a fault on one request in 4 shows on at least one with 76% confidence" \
    "--budget-usd 0.38: 3 repeats more (USD 0.374403), a fourth would not fit (USD 0.387282)"
is "$(plan_repeats --budget-usd 0.33 | sed 's/:.*//')" "3 sweep sends the top of the context 2 times" \
    "--budget-usd 0.33: the plan fits, but not with the largest prompt's reservation: no repeat more"
is "$(plan_repeats --budget-tokens 80000)" \
    "4 sweep sends the top of the context 3 times, as the budget covers them: a fault on one request in 4 shows on at least one with 57% confidence" \
    "--budget-tokens 80000: 1 repeat more (76,023 tokens), a second would not fit (80,060)"
is "$(plan_repeats --budget-tokens 30000 | sed 's/:.*//')" "3 sweep sends the top of the context 2 times" \
    "a budget below the plan: the default repeats"
is "$(plan_repeats --depth diagnose --budget-usd 1)" \
    "21 sweep sends 97% of the context 4 times: a fault on one request in 4 shows on at least one with 68% confidence" \
    "diagnose: its own repeats, a budget or not"
is "$(plan_repeats --budget-usd 1 | sed 's/:.*//')" "9 sweep sends the top of the context 8 times, as the budget covers them" \
    "--budget-usd 1: 8 repeats, the most"
# sweep_run OPTS...: "status [verdict, top_repeats, confidence] exchanges" of a run under OPTS.
sweep_run() {
	run probe run V/e --yes --json "$@"
	printf '%s %s %s' "$(printf '%s' "$out" | jq -r '.status')" \
	    "$(printf '%s' "$out" | jq -c '.probes[] | select(.name == "sweep") | [.verdict, .details.top_repeats, .details.confidence]')" \
	    "$(q "SELECT group_concat(streaming || ':' || (request_size > 5000), ',') FROM exchange WHERE
	    run_id = $(printf '%s' "$out" | jq -r .id) AND probe = 'sweep'")"
}
is "$(sweep_run --budget-usd 0.38)" 'completed ["pass",5,0.76] 0:1,0:1,0:1,0:1,0:1,1:0' \
    "--budget-usd 0.38: 5 plain top prompts and the small streamed one, and the run completes within the budget"
is "$(sweep_run --budget-tokens 76100)" 'completed ["pass",3,0.57] 0:1,0:1,0:1,1:0' \
    "--budget-tokens 76100: 3 plain top prompts, and the run completes within the budget"
# A run a budget stopped, with inconclusive probes and no finding, is never "ok".
run probe runs V
like "$out" "^ *$budget_run  V/e +budget_exhausted +[^ ]+  no findings; [1-9] of 5 probes inconclusive; run budget_exhausted$" \
    "probe runs: no findings, but how many probes were inconclusive"
is "$("$AIVET" probe runs V --json | jq -r ".[] | select(.id == $budget_run) | [.outcome, .findings, (.inconclusive > 0)] | map(tostring) | join(\" \")")" \
    "unsure 0 true" "probe runs --json: outcome unsure, not ok"
"$AIVET" endpoint add V --name free --api openai --url "$SIM_URL/v1" --model aivet-sim-1 --context 4096 \
    --credential alice=env:PROBE_KEY_ALICE --credential bob=env:PROBE_KEY_BOB >/dev/null
run probe run V/free --dry-run --budget-tokens 10000
is "$(printf '%s\n' "$out" | grep -e '^  total ' -e '^  budget ')" \
"  total           33 requests           70,194 tokens in      1,792 out
  budget       at most 10,000 tokens in and out (--budget-tokens): the run stops there; the whole plan sends 70,194 in and 1,792 out" \
    "--budget-tokens without prices: the budget's line has no price"
# The default depth at 1,048,576 tokens with one credential (bench/cost's vendor): the
# top of the context (1,017,118 tokens as a typical tokenizer counts it) twice and 1%
# streamed, the canary's near-limit load and the small probes: within 3x the context
# (3,145,728) and under diagnose, which repeats its 97% point 4 times.
"$AIVET" endpoint add V --name big --api openai --url "$SIM_URL/v1" --model aivet-sim-1 --context 1048576 \
    --credential alice=env:PROBE_KEY_ALICE --price-in 2.5 --price-out 10 >/dev/null
v=$("$AIVET" probe run V/big --dry-run --json | jq '.tokens_in_expected')
d=$("$AIVET" probe run V/big --dry-run --json --depth diagnose | jq '.tokens_in_expected')
is "$v $d" "3067407 8239241" "1,048,576 tokens: verify and diagnose plan these expected input tokens"
ok "$([ "$v" -le $((3 * 1048576)) ] && [ "$v" -le "$d" ] && echo 0 || echo 1)" \
    "1,048,576 tokens: verify within 3x the context and not above diagnose"
run probe run V/big --dry-run --budget-usd 5
is "$(printf '%s\n' "$out" | grep -e '^  budget ' -e '^  expected ')" \
"  budget       at most USD 5.00 (--budget-usd): the run stops there; the whole plan would cost about USD 26.45
  expected                           3,067,407 tokens in  (about USD 7.68) against a vendor as advertised (oversize prompts refused, not billed); depth verify" \
    "--budget-usd 5 at 1,048,576 tokens: the expected tokens at their own price, the budget's stop beside"
# Cached input at the endpoint's cached price: the shared opening of the canaries after the first.
"$AIVET" endpoint add V --name c1 --api openai --url "$SIM_URL/v1" --model aivet-sim-1 --context 4096 \
    --price-in 3 --price-out 15 >/dev/null
"$AIVET" endpoint add V --name c2 --api openai --url "$SIM_URL/v1" --model aivet-sim-1 --context 4096 \
    --price-in 3 --price-out 15 --option price-cached-in=0.3 >/dev/null
is "$("$AIVET" probe run V/c1 --dry-run --json 2>/dev/null | jq -c '[.tokens_in_expected, .tokens_in_cached_expected, .cost_usd_expected]') $("$AIVET" probe run V/c2 --dry-run --json 2>/dev/null | jq -c '[.tokens_in_expected, .tokens_in_cached_expected, .cost_usd_expected]')" \
    "[17527,0,0.071781] [17527,1024,0.0690162]" "plan: cached input is priced at --option price-cached-in where the endpoint gives one"
run probe run V/free --yes --budget-usd 1
is "$rc" 2 "--budget-usd on an endpoint without prices is refused"
like "$errout" "--budget-usd: endpoint V/free has no prices" "and says why"
sim_stop

# ---- a verify failure says how to locate it ----
sim_start --context 4096 --pool 3000 --tenants "$PROBE_TENANTS" || exit 1
probe_setup openai 4096 --price-in 3 --price-out 15
run probe run V/e --yes --json --probe echo,sweep
is "$(codes)" "CAPACITY_BELOW_ADVERTISED" "verify: a capacity below the advertised context is found at the top, quoting the vendor's count"
like "$(printf '%s' "$out" | jq -r '.probes[] | select(.name == "sweep") | .findings[0].message')" \
    "^a prompt of about [0-9]+ tokens, [0-9]+ by the vendor's own count(, sent again at that size)?, under the advertised 4096, was refused for size(; a (streamed )?prompt of about [0-9]+ tokens, [0-9]+ by the vendor's own count(, sent again at that size)?, under the advertised 4096, was refused for size)*(; and [0-9]+ more)?$" \
    "verify: the finding records what was seen, no command and no cost"
sweep_run=$(printf '%s' "$out" | jq -r .id)
is "$(printf '%s' "$out" | jq -c '.probes[] | select(.name == "sweep") | .details | [.depth, .refusal_boundary]')" \
    '["verify",null]' "verify: no boundary is claimed"
# next PROBE DOES: the line "probe show" adds, built from what --dry-run plans for it now.
next_line() {
	set -- "$1" "$2" $("$AIVET" probe run V/e --probe "$1" --depth diagnose --dry-run | sed -n 's/^  total *\([0-9,]*\) requests *\([0-9,]*\) tokens in *\([0-9,]*\) out  (about USD \([0-9.]*\))$/\1 \2 \3 \4/p')
	printf 'next: aivet probe run V/e --probe %s --depth diagnose %s: %s requests, at most %s tokens in and %s out (about USD %s), as its --dry-run plans it' "$1" "$2" "$3" "$4" "$5" "$6"
}
run probe show "$sweep_run"
is "$(printf '%s\n' "$out" | grep '^next: ')" "$(next_line sweep "locates the boundary")" \
    "verify: probe show adds the diagnose command, planned now with the figures of its --dry-run"
sim_stop

# ---- a verify canary failure says how to look further ----
sim_start --context 4096 --pool 2662 --tenants "$PROBE_TENANTS" --fault disagg-placeholder || exit 1
probe_setup openai 4096 --price-in 3 --price-out 15
# canary FIELD: "CODE: FIELD" of each canary finding of the run JSON in $out.
canary() {
	printf '%s' "$out" | jq -r --arg f "$1" '.probes[] | select(.name == "canary") | .findings[] | "\(.code): \(.[$f])"'
}
run probe run V/e --yes --json --probe canary --concurrency 1
is "$rc" 1 "verify: the canary fails"
is "$(canary message | sed -E 's/about [0-9]+ tokens was/about N tokens was/')" \
    "LEAK_CROSS_TENANT: a response to tenant 'alice' contained canaries that tenant 'bob' sent; a response to tenant 'bob' contained canaries that tenant 'alice' sent
PLACEHOLDER_SUBSTITUTION: a prompt of about N tokens was answered from content it did not contain" \
    "verify: the isolation findings record what was seen, no command and no cost"
canary_run=$(printf '%s' "$out" | jq -r .id)
verify_in=$(printf '%s' "$out" | jq -r '.plan.probes[] | select(.name == "canary") | .tokens_in')
run probe show "$canary_run"
is "$(printf '%s\n' "$out" | grep '^next: ')" "$(next_line canary "looks further, with twice the canary rounds")" \
    "verify: probe show adds the canary's diagnose command with the figures of its --dry-run"
# Records hold facts: the timeline of an incident opened from the finding, and the signed
# report and its OSCAL, carry the finding as seen, no command and no cost.
fid=$(q "SELECT id FROM finding WHERE run_id = $canary_run AND code = 'LEAK_CROSS_TENANT'")
"$AIVET" incident open V --title "leak" --from-finding "$fid" --eu-data no >/dev/null
"$AIVET" key generate --no-password >/dev/null 2>&1
"$AIVET" report V --out "$T/facts" >/dev/null
recorded=$( { "$AIVET" incident show 1 --json | jq -r '.timeline[].text'; cat "$T/facts/report.json" "$T/facts/oscal-assessment-results.json"; } )
is "$(printf '%s' "$recorded" | grep -c "contained canaries that tenant 'bob' sent") $(printf '%s' "$recorded" | grep -c -e '--depth diagnose' -e 'about USD')" \
    "$(printf '%s' "$recorded" | grep -c "contained canaries that tenant 'bob' sent") 0" \
    "the timeline, report.json and OSCAL carry the finding, never the command or its cost"
ok "$([ "$(printf '%s' "$recorded" | grep -c "contained canaries that tenant 'bob' sent")" -ge 3 ] && echo 0 || echo 1)" \
    "and the finding is there in all three"
diag_in=$("$AIVET" probe run V/e --probe canary --depth diagnose --dry-run --json | jq -r '.probes[] | select(.name == "canary") | .tokens_in')
ok "$([ "$diag_in" -gt "$verify_in" ] && echo 0 || echo 1)" \
    "verify: 4 canary rounds plan more tokens ($diag_in) than the 2 this run sent ($verify_in)"
run probe run V/e --yes --json --probe canary --concurrency 1 --depth diagnose
is "$rc:$(q "SELECT count(*) FROM exchange WHERE run_id = 2 AND probe = 'canary'")" 1:28 \
    "diagnose: the same failure, over 4 canary rounds (28 requests)"
is "$(canary message | sed -E 's/about [0-9]+ tokens was/about N tokens was/')" "LEAK_CROSS_TENANT: a response to tenant 'alice' contained canaries that tenant 'bob' sent; a response to tenant 'bob' contained canaries that tenant 'alice' sent
PLACEHOLDER_SUBSTITUTION: a prompt of about N tokens was answered from content it did not contain" \
    "diagnose: the findings name no further command"
run probe show "$(printf '%s' "$out" | jq -r .id)"
unlike "$out" "^next: " "diagnose: nor does probe show"
sim_stop
done_testing
