#!/bin/sh
# probe-safety.sh: what keeps probing safe and honest: the plan and its
# dry run, the token budget, Ctrl-C (finished evidence stays intact),
# redirects never followed (the key never reaches another origin), the
# response size cap, a server closing mid-body, and bad options that change
# nothing. Against aivet-sim on 127.0.0.1.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib/lib.sh"
. "$TESTS_SRCDIR/lib/sim-lib.sh"
. "$TESTS_SRCDIR/lib/probe-lib.sh"

sim_start --context 8192 --pool 8192 --tenants "$PROBE_TENANTS" || exit 1
probe_setup openai 8192 --price-in 2.5 --price-out 10

# ---- bad options change nothing ----
before=$(db_snapshot)
run probe run V/e --yes --probe echo,nosuch
is "$rc:$errout" "2:aivet: --probe: unknown probe 'nosuch' (probes: engine, echo, oversize, sweep, canary, errors, prefix-timing, cache-extract, or all)" \
    "an unknown probe is refused, with every probe of the table"
run probe run V/e --yes --probe canry
is "$rc:$errout" "2:aivet: --probe: unknown probe 'canry': did you mean 'canary'? (probes: engine, echo, oversize, sweep, canary, errors, prefix-timing, cache-extract, or all)" \
    "a typo of a probe's name: the probe it meant"
run probe run V/e --yes --fail-on severe
is "$rc:$errout" "2:aivet: --fail-on: 'severe' is not one of info, low, medium, high, critical" \
    "an unknown severity is refused"
run probe run V/nope --yes
is "$rc:$errout" "2:aivet: unknown endpoint 'V/nope' (see 'aivet endpoint list')" "an unknown endpoint is refused"
(unset PROBE_KEY_BOB; "$AIVET" probe run V/e --yes >"$T/o" 2>"$T/e"; echo $? >"$T/rc")
is "$(cat "$T/rc"):$(cat "$T/e")" \
    "2:aivet: tenant 'bob': credential env:PROBE_KEY_BOB: the environment variable is not set" \
    "an unresolvable credential stops the run before it starts"
is "$(db_snapshot)" "$before" "refused runs changed nothing"

# ---- dry run: the plan only ----
run probe run V/e --dry-run
is "$rc" 0 "dry run exits 0"
like "$out" "^plan \(at most\):" "dry run prints the plan"
like "$out" "total +[0-9,]+ requests +[0-9,]+ tokens in +[0-9,]+ out  \(about USD [0-9]+\.[0-9]{2}\)" \
    "with the cost when the endpoint has a price"
run probe run V/e --dry-run --json --probe echo,oversize
is "$(printf '%s' "$out" | jq -c '[.probes[].name, .requests, (.cost_usd > 0)]')" \
    '["calibration","echo","oversize",10,true]' "dry run JSON: probes, requests, cost"
is "$(db_snapshot)" "$before" "a dry run writes nothing"
is "$(grep -c ' POST ' "$SIM_LOG")" 0 "a dry run sends nothing"

# ---- budget: stops before exceeding it ----
run probe run V/e --yes --json --budget-tokens 30000
is "$(printf '%s' "$out" | jq -r '.status')" budget_exhausted "budget: the run is marked budget_exhausted"
used=$(printf '%s' "$out" | jq -r '.tokens_in + .tokens_out')
ok "$([ "$used" -le 30000 ] && [ "$used" -gt 0 ] && echo 0 || echo 1)" "budget: $used tokens used, not over 30,000"
is "$(printf '%s' "$out" | jq -r '[.probes[] | "\(.name):\(.verdict)"] | join(" ")')" \
    "echo:pass errors:pass sweep:pass canary:inconclusive oversize:inconclusive" \
    "budget: the most informative first (oversize, the costliest, last); the probe it stopped is inconclusive"
is "$(printf '%s' "$out" | jq -r '.probes[3].reason')" \
    "the token budget of 30,000 tokens was exhausted before the probe finished" "budget: and says which budget"
like "$(printf '%s' "$out" | jq -r '.probes[4].reason')" \
    "^not checked: the token budget of 30,000 tokens ran out before it \(checked before it: echo, errors, sweep\); it plans at most [0-9,]+ input tokens$" \
    "budget: a partial verdict: the probe not run says so, and which were checked"
run probe run V/e --dry-run --json --budget-tokens 30000
is "$(printf '%s' "$out" | jq -r '[.probes[].name] | join(" ")')" "calibration echo errors sweep canary oversize" \
    "budget: the plan is in the order the requests go"
sim_stop

# ---- Ctrl-C: the run stops, finished exchanges stay recorded ----
sim_start --context 8192 --pool 8192 --tenants "$PROBE_TENANTS" --prefill-us-per-token 100 || exit 1
probe_setup openai 8192
"$AIVET" probe run V/e --yes >"$T/int.out" 2>"$T/int.err" &
pid=$!
n=0
while [ "$(q "SELECT count(*) FROM exchange" 2>/dev/null || echo 0)" -lt 6 ] && [ $n -lt 100 ]; do
	sleep 0.1
	n=$((n + 1))
done
kill -INT $pid
wait $pid && rc=0 || rc=$?
is "$rc:$(cat "$T/int.err")" "3:aivet: interrupted: run 1 stopped; its finished exchanges are recorded" \
    "interrupt: exit 3 with a message"
is "$(q "SELECT status, finished_at IS NOT NULL FROM probe_run")" "interrupted|1" "interrupt: run marked interrupted"
ok "$([ "$(q "SELECT count(*) FROM exchange")" -ge 6 ] && echo 0 || echo 1)" "interrupt: exchanges kept"
is "$(q "SELECT count(*) FROM exchange x JOIN evidence e ON e.id = x.evidence_id JOIN blob b ON b.sha256 = e.sha256")" \
    "$(q "SELECT count(*) FROM exchange")" "interrupt: every exchange has its evidence bytes"
bad=0
for e in $(q "SELECT evidence_id FROM exchange"); do
	"$AIVET" evidence show "$e" >/dev/null 2>&1 || bad=$((bad + 1))
done
is "$bad" 0 "interrupt: every exchange reads back, hashes checked"
run audit verify
is "$rc" 0 "interrupt: audit chain intact"
sim_stop

# ---- redirects are not followed: the key never reaches the other origin ----
sim_start --context 8192 --pool 8192 || exit 1
other_url=$SIM_URL other_log=$SIM_LOG other_pid=$SIM_PID
sim_start --context 8192 --pool 8192 --tenants "$PROBE_TENANTS" --fault redirect --redirect-to "$other_url/v1/chat/completions" || exit 1
probe_setup openai 8192
run probe run V/e --yes --json --probe echo
is "$rc" 3 "redirect: exit 3 (no answer)"
is "$(printf '%s' "$out" | jq -r '.probes[0].reason')" \
    "no answer: HTTP 307 redirect to $other_url/v1/chat/completions was not followed (credentials are never sent on)" \
    "redirect: the reason names the redirect"
is "$(q "SELECT DISTINCT response_status || ' ' || json_extract(response_headers, '$.location') FROM exchange")" \
    "307 $other_url/v1/chat/completions" "redirect: the 307 and its Location are recorded"
is "$(grep -c ' POST ' "$other_log")" 0 "redirect: the other origin received nothing"
sim_stop
kill "$other_pid" 2>/dev/null

# ---- an oversized response is cut at the cap and recorded as such ----
sim_start --context 8192 --pool 8192 --tenants "$PROBE_TENANTS" --fault huge-response --huge-bytes 1000000 || exit 1
probe_setup openai 8192
run probe run V/e --yes --json --probe echo --max-response 65536
is "$rc" 3 "huge response: exit 3"
is "$(q "SELECT DISTINCT response_size || ' ' || response_truncated || ' ' || error FROM exchange WHERE probe = 'echo'")" \
    "65536 1 response body exceeded the 65536-byte cap and was cut" "huge response: capped at 64 KiB, marked"
is "$(printf '%s' "$out" | jq -r '.probes[0].reason')" \
    "no answer: response body exceeded the 65536-byte cap and was cut" "huge response: the probe says why"
sim_stop

# ---- a server that closes the connection mid-body ----
sim_start --context 8192 --pool 8192 --tenants "$PROBE_TENANTS" --fault close-mid-body || exit 1
probe_setup openai 8192
run probe run V/e --yes --json --probe echo,errors
is "$rc" 3 "close mid-body: exit 3"
is "$(printf '%s' "$out" | jq -r '.probes[0].verdict + ": " + .probes[0].reason')" \
    "error: no answer: transfer closed with 188 bytes remaining to read" "close mid-body: the error is named"
is "$(q "SELECT count(*) FROM exchange WHERE probe = 'echo' AND error IS NOT NULL AND response_size > 0")" \
    2 "close mid-body: the partial bodies are kept"
run audit verify
is "$rc" 0 "close mid-body: audit chain intact"
sim_stop

done_testing
