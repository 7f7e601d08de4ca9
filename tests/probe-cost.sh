#!/bin/sh
# probe-cost.sh: what a run plans to spend and what it sends, per depth. The
# plan's two figures (at most: every request billed; expected: a vendor that
# refuses, and does not bill, prompts over its context) pinned exactly for a
# 4,096-token context at USD 3 / 15 per million tokens; verify sends the top
# of the context where diagnose sweeps fractions and searches; the run keeps
# what the vendor billed beside the plan; a verify failure names the diagnose
# command that locates the boundary and what it would cost.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
. "$TESTS_SRCDIR/sim-lib.sh"
. "$TESTS_SRCDIR/probe-lib.sh"

# plan DEPTH: the figures of the dry-run plan at DEPTH.
plan() {
	"$AIVET" probe run V/e --dry-run --json --depth "$1" 2>/dev/null | jq -c '[.depth, .requests,
	    .tokens_in, .tokens_in_expected, .tokens_out, .cost_usd, .cost_usd_expected,
	    [.probes[] | [.name, .requests, .tokens_in, .tokens_in_expected]]]'
}

sim_start --context 4096 --pool 4096 --tenants "$PROBE_TENANTS" || exit 1
probe_setup openai 4096 --price-in 3 --price-out 15
is "$(plan verify)" '["verify",30,53463,19879,1728,0.186309,0.085557,[["calibration",2,2480,2480],["echo",2,336,336],["oversize",4,24984,0],["sweep",2,4013,4013],["canary",16,21250,12650],["errors",4,400,400]]]' "plan, verify: at most and expected, per probe and in USD"
is "$(plan diagnose)" '["diagnose",46,96143,31839,2752,0.329709,0.136797,[["calibration",2,2480,2480],["echo",2,336,336],["oversize",4,24984,0],["sweep",18,47267,16547],["canary",16,20676,12076],["errors",4,400,400]]]' "plan, diagnose: the fractions and searches on top"
is "$("$AIVET" probe run V/e --dry-run --json 2>/dev/null | jq -r .depth)" verify "verify is the default depth"
run probe run V/e --dry-run
like "$out" "expected +[0-9,]+ tokens in  \(about USD [0-9.]+\) against a vendor as advertised \(oversize prompts refused, not billed\); depth verify" \
    "the text plan shows the expected figure beside the at-most one"
run probe run V/e --dry-run --depth deep
is "$rc" 2 "an unknown depth is refused"

run probe run V/e --yes --json
is "$rc:$(verdicts)" "0:echo:pass oversize:pass sweep:pass canary:pass errors:pass" "verify: a correct vendor passes"
is "$(q "SELECT group_concat(streaming || ':' || (request_size > 5000), ',') FROM exchange WHERE run_id = 1 AND probe = 'sweep'")" "0:1,1:0" \
    "verify: the sweep sends the top of the context plain, and a small prompt streamed"
is "$(q "SELECT group_concat(tenant || ':' || streaming, ',') FROM (SELECT tenant, streaming FROM exchange
    WHERE run_id = 1 AND probe = 'canary' AND request_size > 5000 ORDER BY seq)")" \
    "alice:0,alice:1,bob:1,bob:1" \
    "verify: the last tenant's near-limit canary load is streamed and stands for the sweep's streamed top point"
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
run probe run V/e --yes --json --budget-usd 0.05
is "$(printf '%s' "$out" | jq -r '.status')" budget_exhausted "--budget-usd: the run stops before overrunning it"
ok "$(printf '%s' "$out" | jq '(.tokens_in * 3 + .tokens_out * 15) / 1e6 <= 0.05' | grep -qx true; echo $?)" \
    "--budget-usd: what was counted, at the endpoint's prices, is within USD 0.05"
like "$(printf '%s' "$out" | jq -r '.probes[-1] | "\(.name): \(.verdict): \(.reason)"')" \
    "^oversize: inconclusive: not checked: the budget of USD 0.05 ran out before it \(checked before it: [a-z, ]+\); it plans at most [0-9,]+ input tokens$" \
    "--budget-usd: the partial verdict names what was checked and what was not"
"$AIVET" endpoint add V --name free --api openai --url "$SIM_URL/v1" --model aivet-sim-1 --context 4096 >/dev/null
# Cached input at the endpoint's cached price: the shared opening of the canaries after the first.
"$AIVET" endpoint add V --name c1 --api openai --url "$SIM_URL/v1" --model aivet-sim-1 --context 4096 \
    --price-in 3 --price-out 15 >/dev/null
"$AIVET" endpoint add V --name c2 --api openai --url "$SIM_URL/v1" --model aivet-sim-1 --context 4096 \
    --price-in 3 --price-out 15 --option price-cached-in=0.3 >/dev/null
is "$("$AIVET" probe run V/c1 --dry-run --json 2>/dev/null | jq -c '[.tokens_in_expected, .tokens_in_cached_expected, .cost_usd_expected]') $("$AIVET" probe run V/c2 --dry-run --json 2>/dev/null | jq -c '[.tokens_in_expected, .tokens_in_cached_expected, .cost_usd_expected]')" \
    "[13554,0,0.058902] [13554,1024,0.0561372]" "plan: cached input is priced at --option price-cached-in where the endpoint gives one"
run probe run V/free --yes --budget-usd 1
is "$rc" 2 "--budget-usd on an endpoint without prices is refused"
like "$errout" "--budget-usd: endpoint V/free has no prices" "and says why"
sim_stop

# ---- a verify failure says how to locate it ----
sim_start --context 4096 --pool 3000 --tenants "$PROBE_TENANTS" || exit 1
probe_setup openai 4096 --price-in 3 --price-out 15
run probe run V/e --yes --json --probe echo,sweep
is "$(codes)" "CAPACITY_BELOW_ADVERTISED" "verify: a capacity below the advertised context is found at the top"
like "$(printf '%s' "$out" | jq -r '.probes[] | select(.name == "sweep") | .findings[0].message')" \
    "^a prompt of about [0-9]+ tokens, under the advertised 4096, was refused for size; aivet probe run V/e --probe sweep --depth diagnose locates the boundary \(at most [0-9,]+ input tokens, about USD [0-9.]+\)" \
    "verify: the finding names the diagnose command and its cost"
is "$(printf '%s' "$out" | jq -c '.probes[] | select(.name == "sweep") | .details | [.depth, .refusal_boundary]')" \
    '["verify",null]' "verify: no boundary is claimed"
sim_stop
done_testing
