#!/bin/sh
# timing-load.sh: prefix-timing's verdicts hold under a machine's other work.
# Against aivet-sim with a cache per tenant (no sharing; no cached counts, so
# timing decides) while a CPU hog competes for the machine (one busy loop,
# bounded by timeout, on this machine only, killed at exit): no finding. And
# against tests/lib/noisy-vendor.py giving tenant B's "primed" requests a large
# head start (the whole 300 ms prefill) in the first 17 of 30 trials only, a saving that drifts away during the
# run: the paired test rejects over all trials, but the halves' savings disagree
# (a Mann-Whitney test between them), so the probe says "inconclusive: the
# timing drifted" instead of a finding.
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/sim-lib.sh"

export KEY_A=key-a KEY_B=key-b
_hogs=""
_hog_cleanup() { for p in $_hogs; do kill "$p" 2>/dev/null; done; }
_cleanup_hooks="$_cleanup_hooks _hog_cleanup"

# ---- a competing CPU load, a vendor that does not share ----
sim_start --tenants a=key-a,b=key-b --prefix-cache tenant --prefill-us-per-token 25 \
    --fault no-cached-usage || exit 1
run vendor add Busy
run endpoint add Busy --name e --api openai --url "$SIM_URL/v1" --model aivet-sim-1 \
    --context 131072 --credential a=env:KEY_A --credential b=env:KEY_B
timeout 60 sh -c 'while :; do :; done' &
_hogs="$_hogs $!"
hog=$!
run probe run Busy/e --probe prefix-timing --yes --json --fail-on medium
hog_alive=$(kill -0 "$hog" 2>/dev/null && echo yes || echo no)
kill "$hog" 2>/dev/null
sim_stop
is "$hog_alive" yes "the CPU hog competed for the whole run"
is "$(printf '%s' "$out" | json '.probes[0] | [(.findings | length), (.verdict == "pass" or .verdict == "inconclusive")] | @csv')" "0,true" \
    "under load, a vendor that does not share: no finding"
is "$rc" 0 "under load: exit 0"
echo "# under load: $(printf '%s' "$out" | json '.probes[0] | "\(.verdict): \(.reason)"')"

# ---- a saving that holds in the first half only: the timing drifted ----
# 17 of 30: the paired test over all trials rejects whatever the signs of the
# other 13 differences (its p is at most 0.0019, under the look's 0.0025), and
# the halves differ in at least 195 of their 225 pairs (one-sided p at most
# 0.0004, under the drift check's 0.001 a side), whatever jitter a busy machine
# adds below the 300 ms.
python3 "$TESTS_SRCDIR/lib/noisy-vendor.py" 10 300 300 17 >"$T/drift.out" 2>"$T/drift.err" &
_hogs="$_hogs $!"
i=0
until grep -q '^listening on ' "$T/drift.out" 2>/dev/null || [ $i -ge 100 ]; do sleep 0.1; i=$((i + 1)); done
url=$(sed -n 's/^listening on //p' "$T/drift.out")
run vendor add Drift
run endpoint add Drift --name e --api openai --url "$url/v1" --model m --context 131072 \
    --credential a=env:KEY_A --credential b=env:KEY_B
run probe run Drift/e --probe prefix-timing --yes --json --fail-on medium
is "$(printf '%s' "$out" | json '.probes[0] | [.verdict, (.findings | length), .details.drift.drifted, (.details.paired.p < 0.0025)] | @csv')" \
    '"inconclusive",0,true,true' "drift: the test rejects over all trials, the halves disagree: no finding"
like "$(printf '%s' "$out" | json '.probes[0].reason')" \
    "^the timing drifted: B was faster after A's opening over all 30 trials \(paired p = [0-9.e-]+\), but the saving moved during the run \([0-9.]+ then -?[0-9.]+ ms, halves in the order sent; primed [0-9.]+ then [0-9.]+ ms, control [0-9.]+ then [0-9.]+ ms\)" \
    "drift: the reason says the timing drifted, with the halves' savings and medians"
is "$(printf '%s' "$out" | json '.probes[0].details.drift | (.saving_first_half_ms > 250) and (.saving_second_half_ms < 50)')" true \
    "drift: the paired saving held in the first half only"
# The halves' medians, unpaired, carry the machine's own jitter: a third of the
# 300 ms head start is the margin either way, whatever the machine adds.
is "$(printf '%s' "$out" | json '.probes[0].details.drift | (.control_first_half_ms - .primed_first_half_ms > 200) and (.control_second_half_ms - .primed_second_half_ms < 100)')" true \
    "drift: the saving held in the first half only"
done_testing
